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

export const logger = {
  debug(module: string, msg: string, detail?: unknown): void {
    if (level >= 3) console.debug(`[${module}] ${msg}`, truncate(stringify(detail)));
  },
  error(module: string, msg: string, detail?: unknown): void {
    if (level < 1) return;
    const details = truncate(`${msg} ${stringify(detail)}`.trim());
    console.error(`[${module}] ${details}`);
    if (level >= 2 && sink) sink({ type: 'error', module, details });
  },
};
