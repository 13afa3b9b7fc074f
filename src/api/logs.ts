import { call } from './client';
import { LOG_DETAILS_MAX, truncate } from '../lib/logger';
import { formatLocalDateTime } from '../lib/dates';

/** Sends one client log entry to log_receive (spec §7). Never throws: a failure (a 500 included) is ignored. */
export async function sendClientLog(e: {
  type: string;
  module: string;
  details: string;
  tag1?: string;
}): Promise<void> {
  try {
    await call<null>('log_receive', {
      method: 'POST',
      silent: true,
      data: {
        type: e.type,
        path: window.location.pathname,
        module: e.module,
        location: window.location.href.slice(0, 2048),
        details: truncate(e.details, LOG_DETAILS_MAX),
        timestamp: formatLocalDateTime(new Date()),
        tag1: e.tag1 ?? '',
      },
    });
  } catch {
    // spec §7: a 500 from log_receive is ignored; so is any other failure, to avoid loops.
  }
}

/** device_logging (spec §7): a device report; expects 200. */
export async function sendDeviceLog(payload: unknown): Promise<void> {
  await call<null>('device_logging', { method: 'POST', data: { payload } });
}
