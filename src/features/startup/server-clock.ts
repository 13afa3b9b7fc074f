import { fetchServerTimeOrNull } from '../../api/servertime';
import { serverTimeReceived } from './startup-slice';

/**
 * Parses the server's `yyyy-MM-dd HH:mm:ss` (in the browser's time zone, which the call sends) as a local
 * time; null when it is not in that form.
 */
export function parseServerTime(text: string): Date | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})$/.exec(text.trim());
  if (!m) return null;
  const [, y, mo, d, h, mi, s] = m.map(Number) as [number, number, number, number, number, number, number];
  const date = new Date(y, mo - 1, d, h, mi, s);
  return Number.isNaN(date.getTime()) ? null : date;
}

/**
 * Fetches the server time once (spec §2: "Server time from /api/servertime") and stores the clock offset, so
 * dates the browser signs (KVS signaling) follow the server's clock. A failure is logged and changes nothing
 * (spec §8). The offset is rounded to whole seconds: the server time has no finer resolution.
 */
export async function syncServerClock(
  dispatch: (a: ReturnType<typeof serverTimeReceived>) => unknown,
  now: () => number = Date.now,
): Promise<void> {
  const sent = now();
  const text = await fetchServerTimeOrNull();
  if (text === null) return;
  const server = parseServerTime(text);
  if (!server) {
    console.error(`[servertime] unexpected serverTime "${text}"; keeping the stored time.`);
    return;
  }
  const browserMid = (sent + now()) / 2;
  const clockOffsetMs = Math.round((server.getTime() + 500 - browserMid) / 1000) * 1000;
  dispatch(serverTimeReceived({ serverTime: text, clockOffsetMs }));
}
