/** sessionStorage key of the last automatic reload after a page-chunk load failure. */
export const CHUNK_RELOAD_KEY = 'chunkReloadAt';
/** Spec §9: chunk-reload guard 60 s. */
export const CHUNK_RELOAD_GUARD_MS = 60_000;

const CHUNK_ERROR =
  /Failed to fetch dynamically imported module|error loading dynamically imported module|Importing a module script failed|Unable to preload CSS|ChunkLoadError|Loading chunk [\w-]+ failed/i;

/** Whether an error is the failure to load a lazily imported page (e.g. an old chunk after a deploy). */
export function isChunkLoadError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  return error.name === 'ChunkLoadError' || CHUNK_ERROR.test(error.message);
}

/**
 * Spec §8: one automatic reload unless one happened in the last 60 s. Returns true (and records the time)
 * when a reload may happen now.
 */
export function claimChunkReload(now: number = Date.now(), storage: Storage = sessionStorage): boolean {
  try {
    const last = Number(storage.getItem(CHUNK_RELOAD_KEY));
    if (Number.isFinite(last) && last > 0 && now - last < CHUNK_RELOAD_GUARD_MS) return false;
    storage.setItem(CHUNK_RELOAD_KEY, String(now));
    return true;
  } catch {
    // Without storage no guard is possible: don't risk a reload loop.
    return false;
  }
}
