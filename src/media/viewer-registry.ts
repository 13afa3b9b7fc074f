/**
 * The only holder of the checker's non-serializable media objects (STYLE habit 6): per examinee key, the live
 * viewer connection, its received MediaStream and the <video> element that shows it. Redux holds ids only.
 */

/** What the registry needs of a viewer connection. */
export interface RegisteredViewer {
  readonly clientId: string;
  close(): void;
}

const viewers = new Map<string, RegisteredViewer>();
const streams = new Map<string, MediaStream>();
const videos = new Map<string, HTMLVideoElement>();
const listeners = new Map<string, Set<() => void>>();

function notify(key: string): void {
  for (const fn of listeners.get(key) ?? []) fn();
}

/** Stores the viewer connection of `key`, closing any previous one. */
export function putViewer(key: string, viewer: RegisteredViewer): void {
  const old = viewers.get(key);
  if (old && old !== viewer) old.close();
  viewers.set(key, viewer);
}

/** The viewer connection of `key`, if any. */
export function getViewer(key: string): RegisteredViewer | undefined {
  return viewers.get(key);
}

/** Closes and forgets the viewer of `key` and its stream (the <video> element stays registered). */
export function closeViewer(key: string): void {
  viewers.get(key)?.close();
  viewers.delete(key);
  if (streams.delete(key)) notify(key);
}

/** Closes every viewer (logout, page left). */
export function closeAllViewers(): void {
  for (const key of [...viewers.keys(), ...streams.keys()]) closeViewer(key);
}

/** The stream received for `key` (replaces the previous one). */
export function putStream(key: string, stream: MediaStream): void {
  if (streams.get(key) === stream) return;
  streams.set(key, stream);
  notify(key);
}

/** The stream of `key`, or null. */
export function getStream(key: string): MediaStream | null {
  return streams.get(key) ?? null;
}

/** Calls `fn` whenever the stream of `key` changes; returns the unsubscribe function. */
export function subscribeStream(key: string, fn: () => void): () => void {
  let set = listeners.get(key);
  if (!set) listeners.set(key, (set = new Set()));
  set.add(fn);
  return () => {
    set.delete(fn);
    if (set.size === 0) listeners.delete(key);
  };
}

/** The pane's <video> element shows `key` (frame capture reads from it). */
export function attachVideo(key: string, el: HTMLVideoElement): void {
  videos.set(key, el);
}

/** The pane's <video> element went away. */
export function detachVideo(key: string, el: HTMLVideoElement): void {
  if (videos.get(key) === el) videos.delete(key);
}

/** The <video> element showing `key`, or null. */
export function getVideo(key: string): HTMLVideoElement | null {
  return videos.get(key) ?? null;
}

/** Test helper: forget everything without closing. */
export function resetViewerRegistry(): void {
  viewers.clear();
  streams.clear();
  videos.clear();
  listeners.clear();
}
