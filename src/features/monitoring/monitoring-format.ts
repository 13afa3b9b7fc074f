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

/** A server time (ISO 8601 or `yyyy-MM-dd hh:mm:ss`) as local `yyyy-MM-dd hh:mm:ss`; the input when unparsable. */
export function formatDateTime(value: string | number | null): string {
  if (value === null || value === '') return '';
  const d = new Date(
    typeof value === 'string' && /^\d{4}-\d\d-\d\d \d/.test(value) ? value.replace(' ', 'T') : value,
  );
  if (Number.isNaN(d.getTime())) return String(value);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

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
