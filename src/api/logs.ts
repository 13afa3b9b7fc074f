import { call } from './client';
import { LOG_DETAILS_MAX, truncate } from '../lib/logger';

/** Sends one client log entry to log_receive (spec §7). Never throws: a failure (a 500 included) is ignored. */
export async function sendClientLog(e: {
  type: string;
  module: string;
  details: string;
  tag1?: string;
}): Promise<void> {
  // Where and when it happened, taken now; the time is formatted once date-fns has loaded (it is not in the
  // entry chunk every page loads before its first render, and a log entry can wait for it).
  const at = new Date();
  const data = {
    type: e.type,
    path: window.location.pathname,
    module: e.module,
    location: window.location.href.slice(0, 2048),
    details: truncate(e.details, LOG_DETAILS_MAX),
    timestamp: '',
    tag1: e.tag1 ?? '',
  };
  try {
    const { formatLocalDateTime } = await import('../lib/dates');
    data.timestamp = formatLocalDateTime(at);
    await call<null>('log_receive', { method: 'POST', silent: true, data });
  } catch {
    // spec §7: a 500 from log_receive is ignored; so is any other failure, to avoid loops.
  }
}

/** device_logging (spec §7): a device report; expects 200. */
export async function sendDeviceLog(payload: unknown): Promise<void> {
  await call<null>('device_logging', { method: 'POST', data: { payload } });
}
