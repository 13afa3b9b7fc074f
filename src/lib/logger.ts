/**
 * Client logging with the levels of spec §9 (1 trace, 2 error, 3 debug): requests and successes are logged
 * at level 3 or more, errors at level 1 or more. A sink (set by the app) forwards errors to log_receive.
 */
export type LogSink = (entry: { type: string; module: string; details: string }) => void;

export const LOG_DETAILS_MAX = 1024;

let level = 2;
let sink: LogSink | null = null;

export function setLogLevel(l: number): void {
  level = l;
}
export function setLogSink(s: LogSink | null): void {
  sink = s;
}

export function truncate(s: string, max = LOG_DETAILS_MAX): string {
  return s.length > max ? s.slice(0, max) : s;
}

function stringify(d: unknown): string {
  if (d === undefined) return '';
  if (typeof d === 'string') return d;
  try {
    return JSON.stringify(d);
  } catch {
    return String(d);
  }
}

/** At most this many errors a minute go to the sink (the server); the rest stay on the console. */
export const SINK_MAX_PER_MINUTE = 20;
const sent: number[] = [];

/**
 * Whether one more entry may go to the sink now. Bounded, so a page that keeps failing (offline, or a server
 * that refuses logs) never floods the server, and a failure of the sink itself cannot feed a loop.
 */
function sinkAllows(now: number): boolean {
  while (sent.length > 0 && now - sent[0]! >= 60_000) sent.shift();
  if (sent.length >= SINK_MAX_PER_MINUTE) return false;
  if (typeof navigator !== 'undefined' && navigator.onLine === false) return false;
  sent.push(now);
  return true;
}

/** For tests: forget what was sent. */
export function resetLogSinkBudget(): void {
  sent.length = 0;
}

export const logger = {
  debug(module: string, msg: string, detail?: unknown): void {
    if (level >= 3) console.debug(`[${module}] ${msg}`, truncate(stringify(detail)));
  },
  error(module: string, msg: string, detail?: unknown): void {
    if (level < 1) return;
    const details = truncate(`${msg} ${stringify(detail)}`.trim());
    console.error(`[${module}] ${details}`);
    if (level >= 2 && sink && sinkAllows(Date.now())) sink({ type: 'error', module, details });
  },
  /** An error worth the console only (e.g. a failed log delivery: sending it would start a loop). */
  local(module: string, msg: string): void {
    if (level >= 1) console.warn(`[${module}] ${truncate(msg)}`);
  },
};
