import { Envelope } from '../../../contract/common';
import { ServerTimeQuery, ServerTimeResult } from '../../../contract/logs';
import { ApiError } from './api-error';
import type { App } from './app-types';

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
    });
    // Only valid zone names get here, and there are a few hundred of them.
    formatters.set(timeZone, f);
  }
  return f;
}

/**
 * Formats `date` as 'yyyy-MM-dd HH:mm:ss' wall-clock time in an IANA time zone. Throws a 400 ApiError for
 * an unknown zone.
 */
export function formatInTimeZone(date: Date, timeZone: string): string {
  let f: Intl.DateTimeFormat;
  try {
    f = formatterFor(timeZone);
  } catch {
    throw new ApiError(400, 'validation', `Unknown time zone: ${timeZone}`);
  }
  const parts: Record<string, string> = {};
  for (const p of f.formatToParts(date)) parts[p.type] = p.value;
  return `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute}:${parts.second}`;
}

/**
 * Registers a public GET route answering the server time (spec §7 "servertime"): `{serverTime, timeZone}`
 * in the zone of `?timeZone=` (the browser's), UTC when absent. Used for /api/v1/servertime.php,
 * /api/v1/get_servertime.php and /api/servertime.
 */
export function registerServerTimeRoute(app: App, url: string): void {
  app.get(
    url,
    {
      config: { access: 'public' },
      schema: { querystring: ServerTimeQuery, response: { 200: Envelope(ServerTimeResult) } },
    },
    async (request, reply) => {
      const timeZone = request.query.timeZone ?? 'UTC';
      const result: ServerTimeResult = { serverTime: formatInTimeZone(new Date(), timeZone), timeZone };
      return reply.ok(result);
    },
  );
}
