/**
 * The only holder of non-serializable media objects (STYLE habit 6): MediaStreams by id, and whatever
 * live objects a module must find again later (the master's peer connections and signaling client).
 * Redux keeps ids and statuses only.
 */
const streams = new Map<string, MediaStream>();
const objects = new Map<string, unknown>();
const listeners = new Set<(id: string) => void>();

/** The examinee's own camera+microphone stream id. */
export const LOCAL_STREAM_ID = 'local';
/** The examinee's shared screen (the wider view), while it is shared. */
export const SCREEN_STREAM_ID = 'screen';
/**
 * Frames per second of the shared screen: what its capture asks for (screen-share.ts) and the live copy's
 * limit, a fraction of a camera's cost and enough to read a screen.
 */
export const SCREEN_FRAME_RATE = 5;

/** Stores a stream under an id (replacing and stopping a different previous one). */
export function registerStream(id: string, stream: MediaStream): void {
  const prev = streams.get(id);
  if (prev && prev !== stream) prev.getTracks().forEach((t) => t.stop());
  streams.set(id, stream);
  listeners.forEach((l) => l(id));
}

/** The stream registered under `id`, or null. */
export function getStream(id: string): MediaStream | null {
  return streams.get(id) ?? null;
}

/** Stops every track of the stream and forgets it. */
export function releaseStream(id: string): void {
  const s = streams.get(id);
  if (!s) return;
  s.getTracks().forEach((t) => t.stop());
  streams.delete(id);
  listeners.forEach((l) => l(id));
}

/** Calls `fn` with the id whenever a stream is registered or released; returns the unsubscribe. */
export function onStreamChange(fn: (id: string) => void): () => void {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

/** Keeps a live object (peer connection, signaling client, master handle) under a key. */
export function putObject<T>(key: string, value: T): void {
  objects.set(key, value);
}

/** The live object under `key`, or null. */
export function getObject<T>(key: string): T | null {
  return (objects.get(key) as T | undefined) ?? null;
}

/** Forgets the live object under `key` (the caller closes it first). */
export function dropObject(key: string): void {
  objects.delete(key);
}

/** Test helper: forgets everything (stopping tracks). */
export function resetRegistry(): void {
  for (const id of [...streams.keys()]) releaseStream(id);
  objects.clear();
}
