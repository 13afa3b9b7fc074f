/** The AWS error types the stand-in answers with (media-stack.md §2: modeled by both KVS clients). */
export type KvsErrorType =
  | 'ResourceNotFoundException'
  | 'InvalidArgumentException'
  | 'NotAuthorizedException'
  | 'AccessDeniedException'
  | 'ClientLimitExceededException'
  | 'ResourceInUseException'
  | 'VersionMismatchException';

/** Statuses as the KVS API reference and the SDK's models give them (AccessDeniedException is 401 there). */
const STATUS: Record<KvsErrorType, number> = {
  ResourceNotFoundException: 404,
  InvalidArgumentException: 400,
  NotAuthorizedException: 401,
  AccessDeniedException: 401,
  ClientLimitExceededException: 400,
  ResourceInUseException: 400,
  VersionMismatchException: 400,
};

/**
 * An error answered the way the KVS restJson1 APIs do: HTTP status, `x-amzn-errortype` header and
 * `{"Message": ...}` body, so the real SDKs raise their typed exceptions. The WebSocket handshake uses the
 * same answer before upgrading.
 */
export class KvsError extends Error {
  readonly status: number;

  constructor(
    readonly type: KvsErrorType,
    message: string,
  ) {
    super(message);
    this.name = type;
    this.status = STATUS[type];
  }
}

/** Shorthand for the most common error: a malformed request. */
export const invalidArgument = (message: string): KvsError =>
  new KvsError('InvalidArgumentException', message);

/** Shorthand for a known credential whose policy does not allow the action on the resource. */
export const accessDenied = (action: string, resource: string): KvsError =>
  new KvsError(
    'AccessDeniedException',
    `User is not authorized to perform: kinesisvideo:${action} on resource: ${resource.slice(0, 300)}`,
  );

/** Shorthand for a credential problem (unknown, expired, foreign or badly signed). */
export const notAuthorized = (message: string): KvsError => new KvsError('NotAuthorizedException', message);
