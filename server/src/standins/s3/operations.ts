import type { IncomingHttpHeaders } from 'node:http';

/**
 * The object-level S3 API operations the stand-in tells apart, each with the IAM actions it needs on its
 * object, as the AWS Service Authorization Reference maps them ("Actions, resources, and condition keys
 * for Amazon S3", table "API operations defined by Amazon S3"). There is no IAM action of its own for
 * CreateMultipartUpload, UploadPart or CompleteMultipartUpload: all three are `s3:PutObject`, while
 * AbortMultipartUpload and ListParts have theirs. Copies also read their source (`s3:GetObject`).
 */
export const OPERATION_ACTIONS = {
  PutObject: ['s3:PutObject'],
  CreateMultipartUpload: ['s3:PutObject'],
  UploadPart: ['s3:PutObject'],
  CompleteMultipartUpload: ['s3:PutObject'],
  AbortMultipartUpload: ['s3:AbortMultipartUpload'],
  ListParts: ['s3:ListMultipartUploadParts'],
  GetObject: ['s3:GetObject'],
  HeadObject: ['s3:GetObject'],
  DeleteObject: ['s3:DeleteObject'],
  // Recognised so that they are authorised as on AWS; the stand-in does not implement them (501).
  CopyObject: ['s3:PutObject', 's3:GetObject'],
  UploadPartCopy: ['s3:PutObject', 's3:GetObject'],
  GetObjectAcl: ['s3:GetObjectAcl'],
  PutObjectAcl: ['s3:PutObjectAcl'],
  GetObjectTagging: ['s3:GetObjectTagging'],
  PutObjectTagging: ['s3:PutObjectTagging'],
  DeleteObjectTagging: ['s3:DeleteObjectTagging'],
  GetObjectAttributes: ['s3:GetObjectAttributes'],
  GetObjectLegalHold: ['s3:GetObjectLegalHold'],
  PutObjectLegalHold: ['s3:PutObjectLegalHold'],
  GetObjectRetention: ['s3:GetObjectRetention'],
  PutObjectRetention: ['s3:PutObjectRetention'],
  GetObjectTorrent: ['s3:GetObjectTorrent'],
  RestoreObject: ['s3:RestoreObject'],
  SelectObjectContent: ['s3:GetObject'],
} as const satisfies Record<string, readonly string[]>;

/** An object-level S3 operation, named as the S3 API names it. */
export type S3Operation = keyof typeof OPERATION_ACTIONS;

/** The operations the stand-in serves; the others are answered NotImplemented once authorised. */
const IMPLEMENTED: ReadonlySet<S3Operation> = new Set<S3Operation>([
  'PutObject',
  'CreateMultipartUpload',
  'UploadPart',
  'CompleteMultipartUpload',
  'AbortMultipartUpload',
  'ListParts',
  'GetObject',
  'HeadObject',
  'DeleteObject',
]);

/** Sub-resource queries and the operation each method makes of them. */
const SUBRESOURCES: Record<string, Partial<Record<string, S3Operation>>> = {
  acl: { GET: 'GetObjectAcl', HEAD: 'GetObjectAcl', PUT: 'PutObjectAcl' },
  tagging: {
    GET: 'GetObjectTagging',
    HEAD: 'GetObjectTagging',
    PUT: 'PutObjectTagging',
    DELETE: 'DeleteObjectTagging',
  },
  attributes: { GET: 'GetObjectAttributes', HEAD: 'GetObjectAttributes' },
  'legal-hold': { GET: 'GetObjectLegalHold', HEAD: 'GetObjectLegalHold', PUT: 'PutObjectLegalHold' },
  retention: { GET: 'GetObjectRetention', HEAD: 'GetObjectRetention', PUT: 'PutObjectRetention' },
  torrent: { GET: 'GetObjectTorrent', HEAD: 'GetObjectTorrent' },
  restore: { POST: 'RestoreObject' },
  select: { POST: 'SelectObjectContent' },
};

/** With `versionId`, an action on the current object becomes its action on that version. */
const VERSIONED: Readonly<Record<string, string>> = {
  's3:GetObject': 's3:GetObjectVersion',
  's3:DeleteObject': 's3:DeleteObjectVersion',
  's3:GetObjectAcl': 's3:GetObjectVersionAcl',
  's3:PutObjectAcl': 's3:PutObjectVersionAcl',
  's3:GetObjectTagging': 's3:GetObjectVersionTagging',
  's3:PutObjectTagging': 's3:PutObjectVersionTagging',
  's3:DeleteObjectTagging': 's3:DeleteObjectVersionTagging',
  's3:GetObjectAttributes': 's3:GetObjectVersionAttributes',
};

/** What a request is: its operation, the IAM actions it needs on the object, and whether the stand-in serves it. */
export interface ObjectRequest {
  /** Null when no object operation has this method and query (MethodNotAllowed). */
  operation: S3Operation | null;
  /** Every action the caller must be allowed on the object; empty for no operation. */
  actions: readonly string[];
  implemented: boolean;
}

function has(headers: IncomingHttpHeaders, name: string): boolean {
  return headers[name] !== undefined;
}

/**
 * Actions a write needs for what its headers set besides the bytes (the PutObject, CopyObject and
 * CreateMultipartUpload API pages: an ACL needs s3:PutObjectAcl, a tag set s3:PutObjectTagging, object
 * lock settings s3:PutObjectLegalHold / s3:PutObjectRetention).
 */
function headerActions(headers: IncomingHttpHeaders): string[] {
  const out: string[] = [];
  const names = Object.keys(headers);
  if (has(headers, 'x-amz-acl') || names.some((n) => n.startsWith('x-amz-grant-')))
    out.push('s3:PutObjectAcl');
  if (has(headers, 'x-amz-tagging')) out.push('s3:PutObjectTagging');
  if (has(headers, 'x-amz-object-lock-legal-hold')) out.push('s3:PutObjectLegalHold');
  if (has(headers, 'x-amz-object-lock-mode') || has(headers, 'x-amz-object-lock-retain-until-date')) {
    out.push('s3:PutObjectRetention');
  }
  return out;
}

function operationOf(
  method: string,
  query: ReadonlyMap<string, string>,
  headers: IncomingHttpHeaders,
): S3Operation | null {
  const copy = has(headers, 'x-amz-copy-source');
  if (method === 'POST' && query.has('uploads')) return 'CreateMultipartUpload';
  if (method === 'POST' && query.has('uploadId')) return 'CompleteMultipartUpload';
  if (method === 'PUT' && query.has('partNumber') && query.has('uploadId')) {
    return copy ? 'UploadPartCopy' : 'UploadPart';
  }
  if (method === 'GET' && query.has('uploadId')) return 'ListParts';
  if (method === 'DELETE' && query.has('uploadId')) return 'AbortMultipartUpload';
  for (const [name, byMethod] of Object.entries(SUBRESOURCES)) {
    if (query.has(name)) return byMethod[method] ?? null;
  }
  if (method === 'GET') return 'GetObject';
  if (method === 'HEAD') return 'HeadObject';
  if (method === 'PUT') return copy ? 'CopyObject' : 'PutObject';
  if (method === 'DELETE') return 'DeleteObject';
  return null;
}

/**
 * Names the operation of a path-style request on one object (`/s3/<bucket>/<key>`) from its method, query
 * and headers, the way S3 routes it, with the IAM actions it needs. The route dispatches on the operation
 * and authorises the actions, so the two cannot disagree.
 */
export function classifyObjectRequest(
  method: string,
  query: ReadonlyMap<string, string>,
  headers: IncomingHttpHeaders,
): ObjectRequest {
  const operation = operationOf(method, query, headers);
  if (!operation) return { operation: null, actions: [], implemented: false };
  let actions: string[] = [...OPERATION_ACTIONS[operation]];
  if (operation === 'PutObject' || operation === 'CopyObject' || operation === 'CreateMultipartUpload') {
    actions.push(...headerActions(headers));
  }
  const versioned = query.has('versionId') && !query.has('uploadId');
  if (versioned) actions = actions.map((a) => VERSIONED[a] ?? a);
  return { operation, actions, implemented: IMPLEMENTED.has(operation) && !versioned };
}
