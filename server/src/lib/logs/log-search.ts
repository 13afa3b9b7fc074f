import type { LogSearchQuery, LogSearchResult, LogSearchRow } from '../../../../contract/logs';
import type { Db } from '../../db/db';
import { FieldError } from '../management-errors';
import { MANAGEMENT_TIME_ZONE, parseDate, parseTime, sqlWireTime } from '../management-time';

const DEFAULT_PAGE_SIZE = 50;

/** `yyyy-MM-dd HH:mm` → `yyyy-MM-dd HH:mm:00` (a real calendar date and time), or a FieldError. */
function minuteOf(text: string, field: 'from' | 'to'): string {
  const [d = '', t = ''] = text.split(' ');
  const date = parseDate(d);
  const time = parseTime(t);
  if (!date || !time)
    throw new FieldError(field, `${field === 'from' ? '開始日時' : '終了日時'}が正しくありません。`);
  return `${date} ${time}`;
}

/** `%`, `_` and `\` taken literally inside an ILIKE pattern. */
function likeEscape(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/**
 * One page of the log search (/logview): the client logs (log_receive), device logs (device_logging), the
 * audit trail and the server's own rows, newest first. A malformed or reversed time range is a FieldError.
 */
export async function searchLogs(db: Db, q: LogSearchQuery): Promise<LogSearchResult> {
  const where: string[] = [];
  const params: unknown[] = [];
  const add = (sql: (p: string) => string, value: unknown) => {
    params.push(value);
    where.push(sql(`$${params.length}`));
  };
  const from = q.from ? minuteOf(q.from, 'from') : null;
  const to = q.to ? minuteOf(q.to, 'to') : null;
  if (from && to && from > to) throw new FieldError('to', '終了日時は開始日時以降を指定してください。');
  // The times are wall-clock times of the management screens; `to` includes its whole minute.
  if (from) add((p) => `created_at >= (${p}::timestamp AT TIME ZONE '${MANAGEMENT_TIME_ZONE}')`, from);
  if (to)
    add(
      (p) => `created_at < (${p}::timestamp AT TIME ZONE '${MANAGEMENT_TIME_ZONE}') + interval '1 minute'`,
      to,
    );
  if (q.source && q.source !== 'all') add((p) => `source = ${p}`, q.source);
  if (q.actor !== undefined) add((p) => `actor = ${p}`, q.actor);
  const loginId = (q.login_id ?? '').trim();
  if (loginId) add((p) => `login_id = ${p}`, loginId);
  if (q.level) add((p) => `level = ${p}`, q.level);
  const text = (q.text ?? '').trim();
  if (text)
    add(
      (p) =>
        `(type ILIKE ${p} ESCAPE '\\' OR module ILIKE ${p} ESCAPE '\\' OR details ILIKE ${p} ESCAPE '\\' OR location ILIKE ${p} ESCAPE '\\')`,
      `%${likeEscape(text)}%`,
    );
  const whereSql = where.length ? `WHERE ${where.join(' AND ')}` : '';
  const perPage = q.max_display_count ?? DEFAULT_PAGE_SIZE;
  const page = q.page ?? 1;
  const count =
    (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM logs ${whereSql}`, params)).rows[0]?.n ??
    0;
  const { rows } = await db.query<LogSearchRow>(
    `SELECT id::float8 AS id, ${sqlWireTime('created_at')} AS created_at, source, level, type, module, path,
            location, details, login_id, actor::int AS actor, ip
       FROM logs ${whereSql}
      ORDER BY created_at DESC, id DESC
      LIMIT ${perPage} OFFSET ${(page - 1) * perPage}`,
    params,
  );
  return {
    count,
    page_count: Math.max(1, Math.ceil(count / perPage)),
    page,
    list: rows,
  };
}
