import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { s3Errors } from './errors';

const NS = 'http://s3.amazonaws.com/doc/2006-03-01/';

/** A child element: text, nested children, or a list rendered as repeated elements of the same name. */
export type XmlValue = string | number | boolean | XmlNode | XmlNode[] | undefined;
/** Element children in document order (object key order is preserved for string keys). */
export interface XmlNode {
  [name: string]: XmlValue;
}

/** Escapes text for an XML element body. */
export function escapeXml(s: string): string {
  return s.replace(
    /[<>&"']/g,
    (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c] ?? c,
  );
}

function render(node: XmlNode): string {
  let out = '';
  for (const [name, value] of Object.entries(node)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) {
      for (const item of value) out += `<${name}>${render(item)}</${name}>`;
    } else if (typeof value === 'object') {
      out += `<${name}>${render(value)}</${name}>`;
    } else {
      out += `<${name}>${escapeXml(String(value))}</${name}>`;
    }
  }
  return out;
}

/** Renders an S3 response document: `<?xml…?><Root xmlns="…">children</Root>`. */
export function xmlDocument(root: string, children: XmlNode, withNamespace = true): string {
  const ns = withNamespace ? ` xmlns="${NS}"` : '';
  return `<?xml version="1.0" encoding="UTF-8"?>\n<${root}${ns}>${render(children)}</${root}>`;
}

/** One `<Part>` of a CompleteMultipartUpload request. */
export interface CompletePartInput {
  partNumber: number;
  etag: string;
  checksumCrc32?: string;
}

const parser = new XMLParser({
  ignoreAttributes: true,
  removeNSPrefix: true,
  parseTagValue: false,
  trimValues: true,
  isArray: (name) => name === 'Part',
});

/**
 * Parses a CompleteMultipartUpload body into its parts, in the order given (the caller checks the order).
 * Malformed or schema-less documents are MalformedXML, as on S3.
 */
export function parseCompleteMultipartUpload(body: string): CompletePartInput[] {
  if (!body.trim() || XMLValidator.validate(body) !== true) throw s3Errors.malformedXml();
  const doc = parser.parse(body) as { CompleteMultipartUpload?: { Part?: unknown[] } | string };
  const root = doc.CompleteMultipartUpload;
  if (root === undefined) throw s3Errors.malformedXml();
  const parts = typeof root === 'object' ? (root.Part ?? []) : [];
  return parts.map((p) => {
    const part = (p ?? {}) as { PartNumber?: unknown; ETag?: unknown; ChecksumCRC32?: unknown };
    const n =
      typeof part.PartNumber === 'string' && /^\d+$/.test(part.PartNumber) ? Number(part.PartNumber) : NaN;
    if (!Number.isInteger(n) || typeof part.ETag !== 'string') throw s3Errors.malformedXml();
    const out: CompletePartInput = { partNumber: n, etag: part.ETag };
    if (typeof part.ChecksumCRC32 === 'string') out.checksumCrc32 = part.ChecksumCRC32;
    return out;
  });
}
