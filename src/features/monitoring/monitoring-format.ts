import { MESSAGE_COMMANDS, parseCommand, type MessageCommand } from '@contract/constants/messages';
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
const MARKERS: readonly string[] = Object.values(MESSAGE_COMMANDS);

/** Splits `MARKING_ALERT:text` into the marker and its payload; null marker when unknown. */
export function parseMarker(message: string): { marker: MessageCommand | null; payload: string } {
  const { command, payload } = parseCommand(message);
  return { marker: MARKERS.includes(command) ? (command as MessageCommand) : null, payload: payload ?? '' };
}
