/** Spec §2 start-up check 5: each storage must hold this many characters. */
export const STORAGE_CHECK_CHARS = 2_097_152;

/** The key of the temporary test item. */
export const STORAGE_CHECK_KEY = '__storage_check__';

/**
 * Whether one storage can hold `chars` characters in one item. The test item is always removed again.
 *
 * @param storage - localStorage or sessionStorage (null when the browser refuses access to it).
 */
export function canStore(storage: Storage | null, chars = STORAGE_CHECK_CHARS): boolean {
  if (!storage) return false;
  try {
    storage.setItem(STORAGE_CHECK_KEY, 'x'.repeat(chars));
    return storage.getItem(STORAGE_CHECK_KEY)?.length === chars;
  } catch {
    // QuotaExceededError, or SecurityError when storage is disabled.
    return false;
  } finally {
    try {
      storage.removeItem(STORAGE_CHECK_KEY);
    } catch {
      /* storage unusable: already reported as false */
    }
  }
}

/** Reads a storage property without letting a SecurityError (storage disabled) escape. */
function getStorage(read: () => Storage): Storage | null {
  try {
    return read();
  } catch {
    return null;
  }
}

/**
 * Spec §2 start-up check 5 (PC only; the caller decides): localStorage and sessionStorage can each hold
 * 2,097,152 characters.
 *
 * @param storages - the storages to test; defaults to this window's localStorage and sessionStorage.
 */
export function checkStorageCapacity(
  storages?: readonly (Storage | null)[],
  chars = STORAGE_CHECK_CHARS,
): boolean {
  const list = storages ?? [getStorage(() => window.localStorage), getStorage(() => window.sessionStorage)];
  return list.every((s) => canStore(s, chars));
}
