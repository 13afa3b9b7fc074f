/**
 * Whether a KVS call failed because the channel, or the ARN it was named by, does not exist: the channel was
 * deleted, or made again under the same name with a new ARN (the AWS channel sweep deletes idle channels; a
 * stand-in may have lost its own). The SDKs' service errors carry the exception's name as `name`.
 */
export function isResourceNotFound(e: unknown): boolean {
  return (
    typeof e === 'object' && e !== null && (e as { name?: unknown }).name === 'ResourceNotFoundException'
  );
}
