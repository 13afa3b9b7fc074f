/** spec §3/§9: elapsed time as hh:mm:ss since connection, `--:--:--` when unknown. */
export const UNKNOWN_ELAPSED = '--:--:--';

export function formatElapsed(since: number | null, now: number): string {
  if (since === null || !Number.isFinite(since)) return UNKNOWN_ELAPSED;
  const total = Math.max(0, Math.floor((now - since) / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${pad(h)}:${pad(m)}:${pad(s)}`;
}

/** A server time as the deployment's wall clock `yyyy-MM-dd HH:mm:ss` (lib/dates); '' when absent. */
export { formatDateTime } from '../../lib/dates';

/** The fixed markers of spec §3 the chat shows as text. */
export const MARKERS = [
  'MESSAGE_RECEIVED',
  'KICK_OUT',
  'BEFORE_CLOSE',
  'BEFORE_CLOSE_OK',
  'AUTHENTICATING',
  'ACCEPTED',
  'REJECTED',
  'MARKING_ALERT',
] as const;
export type Marker = (typeof MARKERS)[number];

/** Splits `MARKING_ALERT:text` into the marker and its payload; null marker when unknown. */
export function parseMarker(message: string): { marker: Marker | null; payload: string } {
  const i = message.indexOf(':');
  const head = i < 0 ? message : message.slice(0, i);
  const payload = i < 0 ? '' : message.slice(i + 1);
  return { marker: (MARKERS as readonly string[]).includes(head) ? (head as Marker) : null, payload };
}
