import { call } from './client';

/** The browser's time zone (sent with the server-time call, spec §3). */
export function browserTimeZone(): string {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
  } catch {
    return 'UTC';
  }
}

/** GET /api/servertime with timeZone (spec §7); returns the server's `serverTime`. */
export async function getServerTime(timeZone: string = browserTimeZone()): Promise<string> {
  // silent: spec §8 — a failure is only logged; it is not an error record and triggers no redirect.
  const r = await call<{ serverTime?: unknown; server_time?: unknown } | null>('servertime', {
    rawPath: true,
    params: { timeZone },
    silent: true,
  });
  const t = r?.serverTime ?? r?.server_time;
  if (typeof t !== 'string' || !t) throw new Error('servertime: the response has no serverTime');
  return t;
}

/**
 * The server time, or null when it could not be fetched: spec §8 "server-time fetch failure: logged to the
 * console, stored time unchanged" — the caller keeps its stored time when this returns null.
 */
export async function fetchServerTimeOrNull(timeZone: string = browserTimeZone()): Promise<string | null> {
  try {
    return await getServerTime(timeZone);
  } catch (e) {
    console.error('[servertime] could not fetch the server time; keeping the stored time.', e);
    return null;
  }
}
