/**
 * A fresh id, unique for all practical purposes: a UUID where the browser makes them (secure contexts), else time
 * and randomness (a phone on a plain-http address).
 */
export function uniqueId(): string {
  const c = globalThis.crypto;
  if (typeof c?.randomUUID === 'function') return c.randomUUID();
  return `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 12)}`;
}
