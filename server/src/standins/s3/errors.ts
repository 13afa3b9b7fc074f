/**
 * An S3 error as the REST API reports it: `<Error><Code/><Message/><RequestId/></Error>` with an HTTP status
 * (media-stack.md §4.2). Thrown anywhere in the stand-in; the route scope's error handler renders it.
 */
export class S3Error extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** Extra elements for the error document (e.g. UploadId, Key) and response headers. */
    readonly extra: { fields?: Record<string, string>; headers?: Record<string, string> } = {},
  ) {
    super(message);
    this.name = 'S3Error';
  }
}

/** The error codes the stand-in raises, with AWS's status and wording. */
export const s3Errors = {
  noSuchUpload: (uploadId: string) =>
    new S3Error(
      404,
      'NoSuchUpload',
      'The specified upload does not exist. The upload ID may be invalid, or the upload may have been aborted or completed.',
      { fields: { UploadId: uploadId } },
    ),
  noSuchKey: (key: string) =>
    new S3Error(404, 'NoSuchKey', 'The specified key does not exist.', { fields: { Key: key } }),
  invalidArgument: (message: string, name?: string, value?: string) =>
    new S3Error(400, 'InvalidArgument', message, {
      fields: name === undefined ? {} : { ArgumentName: name, ArgumentValue: value ?? '' },
    }),
  invalidRequest: (message: string) => new S3Error(400, 'InvalidRequest', message),
  malformedXml: () =>
    new S3Error(
      400,
      'MalformedXML',
      'The XML you provided was not well-formed or did not validate against our published schema.',
    ),
  invalidPart: (message?: string) =>
    new S3Error(
      400,
      'InvalidPart',
      message ??
        "One or more of the specified parts could not be found. The part may not have been uploaded, or the specified entity tag may not match the part's entity tag.",
    ),
  invalidPartOrder: () =>
    new S3Error(
      400,
      'InvalidPartOrder',
      'The list of parts was not in ascending order. Parts must be ordered by part number.',
    ),
  entityTooSmall: (partNumber: number, size: number, min: number) =>
    new S3Error(
      400,
      'EntityTooSmall',
      'Your proposed upload is smaller than the minimum allowed object size.',
      {
        fields: { PartNumber: String(partNumber), ProposedSize: String(size), MinSizeAllowed: String(min) },
      },
    ),
  entityTooLarge: (size: number, max: number) =>
    new S3Error(400, 'EntityTooLarge', 'Your proposed upload exceeds the maximum allowed size.', {
      fields: { ProposedSize: String(size), MaxSizeAllowed: String(max) },
    }),
  missingContentLength: () =>
    new S3Error(411, 'MissingContentLength', 'You must provide the Content-Length HTTP header.'),
  badDigest: (
    message = 'The Content-MD5 or checksum value that you specified did not match what the server received.',
  ) => new S3Error(400, 'BadDigest', message),
  invalidDigest: () => new S3Error(400, 'InvalidDigest', 'The Content-MD5 you specified is not valid.'),
  sha256Mismatch: () =>
    new S3Error(
      400,
      'XAmzContentSHA256Mismatch',
      "The provided 'x-amz-content-sha256' header does not match what was computed.",
    ),
  invalidRange: (size: number) =>
    new S3Error(416, 'InvalidRange', 'The requested range is not satisfiable', {
      headers: { 'Content-Range': `bytes */${size}` },
      fields: { ActualObjectSize: String(size) },
    }),
  notImplemented: (
    message = 'A header or query you provided implies functionality that is not implemented.',
  ) => new S3Error(501, 'NotImplemented', message),
  accessDenied: (message = 'Access Denied') => new S3Error(403, 'AccessDenied', message),
  invalidAccessKeyId: () =>
    new S3Error(
      403,
      'InvalidAccessKeyId',
      'The AWS Access Key Id you provided does not exist in our records.',
    ),
  signatureDoesNotMatch: () =>
    new S3Error(
      403,
      'SignatureDoesNotMatch',
      'The request signature we calculated does not match the signature you provided. Check your key and signing method.',
    ),
  expiredToken: () => new S3Error(400, 'ExpiredToken', 'The provided token has expired.'),
  invalidToken: () =>
    new S3Error(400, 'InvalidToken', 'The provided token is malformed or otherwise invalid.'),
  internal: () => new S3Error(500, 'InternalError', 'We encountered an internal error. Please try again.'),
  slowDown: () => new S3Error(503, 'SlowDown', 'Please reduce your request rate.'),
};
