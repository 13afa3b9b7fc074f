import {
  MAX_DISPLAY_COUNT_DEFAULT,
  MAX_DISPLAY_COUNT_MAX,
  MAX_DISPLAY_COUNT_MIN,
  SEARCH_COUNT_CAP,
  type TesterRow,
  type TesterSearchQuery,
  type TesterSearchResult,
} from '../../../contract/examinees';
import type { Db } from '../db/db';
import type { AuthContext } from './app-types';
import { FieldError, MSG } from './management-errors';
import { MANAGEMENT_TIME_ZONE, parseDate, parseTime, sqlDisplayTime } from './management-time';

/** A validated examinee search: every filter normalised, plus the caller's group scope. */
export interface TesterFilter {
  /** Test managers (actor 3) see only their own group (spec §6); null for actors 4 and 5. */
  scopeGroupId: number | null;
  /** True when the caller is scoped but has no group: nothing matches. */
  scopeNone: boolean;
  groupId: number | null;
  groupCode: string | null;
  loginId: string | null;
  testName: string | null;
  region: string | null;
  /** `yyyy-MM-dd HH:mm:ss` wall-clock, inclusive lower bound. */
  from: string | null;
  /** `yyyy-MM-dd HH:mm:ss` wall-clock, and whether the bound is inclusive ('<=') or exclusive ('<'). */
  to: { at: string; op: '<' | '<=' } | null;
  /** When `to` is exclusive, how much to add to it ('1 day' for a date only, '1 minute' for HH:mm). */
  toPlus: string | null;
  examName: string | null;
  likeSearch: boolean;
  record: 0 | 1 | null;
  withMark: 0 | 1 | null;
  cheatingFrom: number | null;
  cheatingTo: number | null;
  score: number | null;
  aiAnalysisFlag: number | null;
  aiAnalysisBatchFlag: number | null;
  aiNamematch: number | null;
  markId: number | null;
  sortKey: number;
  /** 0 descending, 1 ascending. */
  sortOrder: 0 | 1;
  page: number;
  perPage: number;
  exactCount: boolean;
  /** Keyset position (from `cursor`): the sort value (as text, null for a NULL) and id of the last row seen. */
  after: { v: string | null; id: number } | null;
}

// Fields that are conditions; paging, sorting and the fuzzy flag alone are not (spec §8 "no search
// parameters for the download").
const CONDITION_FIELDS = [
  'group',
  'group_text',
  'login_id',
  'test_name',
  'region',
  'test_at_date_from',
  'test_at_date_to',
  'test_at_time_from',
  'test_at_time_to',
  'exam_name',
  'record',
  'with_mark',
  'cheating_level_from',
  'cheating_level_to',
  'score',
  'ai_analysis_flag',
  'ai_analysis_batch_flag',
  'ai_namematch',
  'mark_id',
] as const satisfies readonly (keyof TesterSearchQuery)[];

/** True when at least one search condition (not paging or sorting) is filled in. */
export function hasSearchConditions(q: TesterSearchQuery): boolean {
  return CONDITION_FIELDS.some((k) => {
    const v = q[k];
    return v !== undefined && v !== '' && !(typeof v === 'string' && v.trim() === '');
  });
}

function text(v: string | undefined): string | null {
  const t = v?.trim() ?? '';
  return t === '' ? null : t;
}

function int(v: number | '' | undefined): number | null {
  return v === undefined || v === '' ? null : v;
}

function flag(v: number | '' | undefined, field: string): 0 | 1 | null {
  const n = int(v);
  if (n === null) return null;
  if (n !== 0 && n !== 1) throw new FieldError(field, `${field} must be 0 or 1.`);
  return n;
}

function range(v: number | '' | undefined, field: string, min: number, max: number, dflt: number): number {
  const n = int(v) ?? dflt;
  if (n < min || n > max) throw new FieldError(field, `${field} must be between ${min} and ${max}.`);
  return n;
}

const DATE_LABELS = {
  test_at_date_from: '試験日(From)',
  test_at_date_to: '試験日(To)',
  test_at_time_from: '試験時間(From)',
  test_at_time_to: '試験時間(To)',
} as const;

/**
 * Validates a search request (spec §3, §5) for the caller. Date/time combinations permitted (spec §5
 * "the from/to date and time combination must be permitted"): a time only with the date on the same
 * side, and from not after to. A `to` time given as HH:mm includes that whole minute; a `to` date
 * without time includes that whole day.
 */
export function parseTesterSearch(
  q: TesterSearchQuery,
  auth: Pick<AuthContext, 'actor' | 'groupId'>,
): TesterFilter {
  const groupId = int(q.group);
  const groupCode = text(q.group_text);
  if (groupId !== null && groupCode !== null) throw new FieldError('group_text', MSG.groupOrCode);

  const date = (field: 'test_at_date_from' | 'test_at_date_to') => {
    const t = text(q[field]);
    if (t === null) return null;
    const d = parseDate(t);
    if (d === null) throw new FieldError(field, MSG.date(DATE_LABELS[field]));
    return d;
  };
  const time = (field: 'test_at_time_from' | 'test_at_time_to') => {
    const t = text(q[field]);
    if (t === null) return null;
    const parsed = parseTime(t);
    if (parsed === null) throw new FieldError(field, MSG.date(DATE_LABELS[field]));
    return { at: parsed, withSeconds: t.split(':').length === 3 };
  };
  const dateFrom = date('test_at_date_from');
  const dateTo = date('test_at_date_to');
  const timeFrom = time('test_at_time_from');
  const timeTo = time('test_at_time_to');
  if (timeFrom && !dateFrom) throw new FieldError('test_at_time_from', MSG.dateCombination);
  if (timeTo && !dateTo) throw new FieldError('test_at_time_to', MSG.dateCombination);
  const from = dateFrom ? `${dateFrom} ${timeFrom?.at ?? '00:00:00'}` : null;
  let to: TesterFilter['to'] = null;
  let toPlus: string | null = null;
  if (dateTo) {
    if (!timeTo) {
      to = { at: `${dateTo} 00:00:00`, op: '<' };
      toPlus = '1 day';
    } else if (timeTo.withSeconds) {
      to = { at: `${dateTo} ${timeTo.at}`, op: '<=' };
    } else {
      to = { at: `${dateTo} ${timeTo.at}`, op: '<' };
      toPlus = '1 minute';
    }
  }
  // Lexical order of normalised 'yyyy-MM-dd HH:mm:ss' is chronological.
  if (from && dateTo && from > `${dateTo} ${timeTo?.at ?? '23:59:59'}`) {
    throw new FieldError('test_at_date_to', MSG.dateCombination);
  }

  const scoped = auth.actor === 3;
  const filter: TesterFilter = {
    scopeGroupId: scoped ? auth.groupId : null,
    scopeNone: scoped && auth.groupId === null,
    groupId,
    groupCode,
    loginId: text(q.login_id),
    testName: text(q.test_name),
    region: text(q.region),
    from,
    to,
    toPlus,
    examName: text(q.exam_name),
    likeSearch: flag(q.is_like_search, 'is_like_search') === 1,
    record: flag(q.record, 'record'),
    withMark: flag(q.with_mark, 'with_mark'),
    cheatingFrom: int(q.cheating_level_from),
    cheatingTo: int(q.cheating_level_to),
    score: int(q.score),
    aiAnalysisFlag: int(q.ai_analysis_flag),
    aiAnalysisBatchFlag: int(q.ai_analysis_batch_flag),
    aiNamematch: int(q.ai_namematch),
    markId: int(q.mark_id),
    sortKey: range(q.sort_key, 'sort_key', 1, 11, 4),
    sortOrder: range(q.sort_order, 'sort_order', 0, 1, 0) as 0 | 1,
    page: range(q.page, 'page', 1, 1_000_000, 1),
    perPage: range(
      q.max_display_count,
      'max_display_count',
      MAX_DISPLAY_COUNT_MIN,
      MAX_DISPLAY_COUNT_MAX,
      MAX_DISPLAY_COUNT_DEFAULT,
    ),
    exactCount: int(q.exact_count) === 1,
    after: null,
  };
  const cursor = text(q.cursor);
  if (cursor !== null) filter.after = decodeCursor(cursor, filter.sortKey, filter.sortOrder);
  return filter;
}

/**
 * A keyset cursor: base64url of JSON `[sortKey, sortOrder, sortValue, id]`. It is bound to its sort, so a
 * cursor from another sort is refused rather than silently skipping rows. It carries no secret: a hand-made
 * cursor only moves the start of a page within what the caller may see anyway.
 */
export function encodeCursor(sortKey: number, sortOrder: 0 | 1, v: string | null, id: number): string {
  return Buffer.from(JSON.stringify([sortKey, sortOrder, v, id])).toString('base64url');
}

function decodeCursor(c: string, sortKey: number, sortOrder: 0 | 1): { v: string | null; id: number } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(c, 'base64url').toString('utf8'));
  } catch {
    parsed = null;
  }
  if (
    !Array.isArray(parsed) ||
    parsed.length !== 4 ||
    parsed[0] !== sortKey ||
    parsed[1] !== sortOrder ||
    !(parsed[2] === null || typeof parsed[2] === 'string') ||
    !Number.isSafeInteger(parsed[3]) ||
    (parsed[3] as number) < 0
  ) {
    throw new FieldError('cursor', 'cursor is not valid for this search and sort.');
  }
  return { v: parsed[2] as string | null, id: parsed[3] as number };
}

/** Escapes LIKE wildcards so user text matches literally (ESCAPE '\'). */
function likeEscape(s: string): string {
  return s.replace(/[\\%_]/g, (c) => '\\' + c);
}

/** The WHERE clause over `tests t` (no join needed) with its parameters, starting at $1. */
export function testerWhere(f: TesterFilter): { sql: string; params: unknown[] } {
  const params: unknown[] = [];
  const p = (v: unknown) => {
    params.push(v);
    return `$${params.length}`;
  };
  const w: string[] = [];
  if (f.scopeNone) w.push('false');
  if (f.scopeGroupId !== null) w.push(`t.group_id = ${p(f.scopeGroupId)}`);
  if (f.groupId !== null) w.push(`t.group_id = ${p(f.groupId)}`);
  if (f.groupCode !== null)
    w.push(`t.group_id = (SELECT id FROM exam_groups WHERE code = ${p(f.groupCode)})`);
  if (f.loginId !== null) w.push(`t.login_id = ${p(f.loginId)}`);
  if (f.testName !== null) w.push(`t.test_name = ${p(f.testName)}`);
  if (f.region !== null) w.push(`t.region = ${p(f.region)}`);
  const tz = `'${MANAGEMENT_TIME_ZONE}'`;
  if (f.from !== null) w.push(`t.test_at >= (${p(f.from)}::timestamp AT TIME ZONE ${tz})`);
  if (f.to !== null) {
    const plus = f.toPlus ? ` + ${p(f.toPlus)}::interval` : '';
    w.push(`t.test_at ${f.to.op} ((${p(f.to.at)}::timestamp${plus}) AT TIME ZONE ${tz})`);
  }
  if (f.examName !== null) {
    // pg_trgm GIN index (tests_exam_name_trgm_idx) serves the ILIKE; the btree of 0004 serves equality.
    if (f.likeSearch) w.push(`t.exam_name ILIKE ${p('%' + likeEscape(f.examName) + '%')} ESCAPE '\\'`);
    else w.push(`t.exam_name = ${p(f.examName)}`);
  }
  if (f.record !== null) w.push(`t.record = ${p(f.record === 1)}`);
  if (f.withMark !== null) w.push(`t.with_mark = ${p(f.withMark === 1)}`);
  if (f.cheatingFrom !== null) w.push(`t.cheating_level >= ${p(f.cheatingFrom)}`);
  if (f.cheatingTo !== null) w.push(`t.cheating_level <= ${p(f.cheatingTo)}`);
  if (f.score !== null) w.push(`t.total_score >= ${p(f.score)}`);
  if (f.aiAnalysisFlag !== null) w.push(`t.ai_analysis_flag = ${p(f.aiAnalysisFlag)}`);
  if (f.aiAnalysisBatchFlag !== null) w.push(`t.ai_analysis_batch_flag = ${p(f.aiAnalysisBatchFlag)}`);
  if (f.aiNamematch !== null) w.push(`t.ai_namematch <= ${p(f.aiNamematch)}`);
  if (f.markId !== null) {
    w.push(`EXISTS (SELECT 1 FROM markings m WHERE m.test_id = t.id AND m.mark_id = ${p(f.markId)})`);
  }
  return { sql: w.length ? w.join(' AND ') : 'true', params };
}

/**
 * Sort columns (contract TESTER_SORT_KEYS) with their SQL type (to read a cursor's value back) and whether
 * they can be NULL. Each has a (column, id) index (migrations 0001, 0007); the group name is the copy on
 * tests (0007), not a join, so that sort is an index range too.
 */
const SORT_COLUMNS: Record<number, { expr: string; type: string; nullable: boolean }> = {
  1: { expr: 't.group_name', type: 'text', nullable: true },
  2: { expr: 't.test_name', type: 'text', nullable: false },
  3: { expr: 't.region', type: 'text', nullable: false },
  4: { expr: 't.test_at', type: 'timestamptz', nullable: true },
  5: { expr: 't.exam_name', type: 'text', nullable: false },
  6: { expr: 't.with_mark', type: 'boolean', nullable: false },
  7: { expr: 't.total_score', type: 'integer', nullable: false },
  8: { expr: 't.record', type: 'boolean', nullable: false },
  9: { expr: 't.login_id', type: 'text', nullable: false },
  10: { expr: 't.cheating_level', type: 'integer', nullable: false },
  11: { expr: 't.id', type: 'bigint', nullable: false },
};

const ROW_SELECT = `SELECT t.id AS test_id, t.group_name AS "group", t.group_id, t.test_name, t.region,
    ${sqlDisplayTime('t.test_at')} AS test_at, ${sqlDisplayTime('t.stop_at')} AS stop_at,
    t.exam_name, t.with_mark::int AS with_mark, t.record::int AS record, t.user_id, t.login_id,
    t.cheating_level, t.total_score, t.pass::int AS pass`;

/**
 * Counts matches, stopping at `cap + 1` rows so a broad filter over a million rows costs a bounded scan
 * (perf-reliability §4: "counts above 10k return ≥ 10,000 unless an exact count is asked for").
 */
export async function countTesters(
  db: Db,
  f: TesterFilter,
  cap: number | null,
): Promise<{ count: number; capped: boolean }> {
  const { sql, params } = testerWhere(f);
  if (cap === null) {
    const r = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM tests t WHERE ${sql}`, params);
    return { count: r.rows[0]?.n ?? 0, capped: false };
  }
  const r = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM (SELECT 1 FROM tests t WHERE ${sql} LIMIT ${cap + 1}) s`,
    params,
  );
  const n = r.rows[0]?.n ?? 0;
  return n > cap ? { count: cap, capped: true } : { count: n, capped: false };
}

/** True when a cursor's sort value can be read as the column's type (so a forged one is a 400, not a 500). */
function cursorValueFits(type: string, v: string): boolean {
  if (type === 'integer' || type === 'bigint') return /^-?\d{1,18}$/.test(v);
  if (type === 'boolean') return v === 'true' || v === 'false';
  if (type === 'timestamptz') {
    const m =
      /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,6})?)?([+-]\d{2}(:?\d{2})?|Z)?$/.exec(
        v,
      );
    if (!m) return false;
    // A well-formed but impossible date (month 13, 25:00) must be a 400 too, not a database error.
    const [mo, d, h, mi, sec] = [m[2], m[3], m[4], m[5], m[6] ?? '0'].map(Number) as number[];
    const days = new Date(Date.UTC(Number(m[1]), mo!, 0)).getUTCDate();
    return mo! >= 1 && mo! <= 12 && d! >= 1 && d! <= days && h! <= 23 && mi! <= 59 && sec! <= 59;
  }
  return true;
}

type SortedRow = TesterRow & { sort_value?: string | null };

/**
 * One page of the examinee search. Two ways to page, same order (sort column, then id, both in the sort
 * direction; NULLs first when descending, last when ascending, as PostgreSQL orders them):
 * - `page` (OFFSET): what the screen's page numbers use; the count cap bounds how deep it goes.
 * - `cursor` (keyset, from the previous answer's `next_cursor`): each page is an index range after the last
 *   row seen, however deep. A nullable sort column is read as two segments (NULLs, then values, or the
 *   reverse) so every condition stays a plain index range.
 * `next_cursor` is given on every answer that has more rows after it.
 */
export async function searchTesters(db: Db, f: TesterFilter): Promise<TesterSearchResult> {
  const { count, capped } = await countTesters(db, f, f.exactCount ? null : SEARCH_COUNT_CAP);
  const pageCount = Math.max(1, Math.ceil(count / f.perPage));
  const where = testerWhere(f);
  const desc = f.sortOrder === 0;
  const dir = desc ? 'DESC' : 'ASC';
  const col = SORT_COLUMNS[f.sortKey] ?? SORT_COLUMNS[4]!;
  const byId = col.expr === 't.id';
  const select = byId ? ROW_SELECT : `${ROW_SELECT}, ${col.expr}::text AS sort_value`;
  const order = byId ? `t.id ${dir}` : `${col.expr} ${dir}, t.id ${dir}`;
  const want = f.perPage + 1; // one more than a page tells whether a next page exists

  let rows: SortedRow[];
  if (f.after === null) {
    const offset = (f.page - 1) * f.perPage;
    rows =
      offset >= count && !capped
        ? []
        : (
            await db.query<SortedRow>(
              `${select} FROM tests t WHERE ${where.sql} ORDER BY ${order} LIMIT ${want} OFFSET ${offset}`,
              where.params,
            )
          ).rows;
  } else {
    const after = f.after;
    const cmp = desc ? '<' : '>';
    const segments: ('null' | 'value')[] = !col.nullable
      ? ['value']
      : desc
        ? ['null', 'value']
        : ['value', 'null'];
    const first = col.nullable && after.v === null ? segments.indexOf('null') : segments.indexOf('value');
    if (after.v === null ? !col.nullable : !cursorValueFits(col.type, after.v)) {
      throw new FieldError('cursor', 'cursor is not valid for this search and sort.');
    }
    rows = [];
    for (let i = first; i < segments.length && rows.length < want; i++) {
      const params = [...where.params];
      const p = (v: unknown) => {
        params.push(v);
        return `$${params.length}`;
      };
      const cond: string[] = [];
      let segOrder = order;
      if (segments[i] === 'null') {
        cond.push(`${col.expr} IS NULL`);
        if (i === first) cond.push(`t.id ${cmp} ${p(after.id)}::bigint`);
        segOrder = `t.id ${dir}`;
      } else if (byId) {
        cond.push(`t.id ${cmp} ${p(after.id)}::bigint`);
      } else if (i === first) {
        cond.push(`(${col.expr}, t.id) ${cmp} (${p(after.v)}::${col.type}, ${p(after.id)}::bigint)`);
      } else if (col.nullable) {
        cond.push(`${col.expr} IS NOT NULL`);
      }
      const r = await db.query<SortedRow>(
        `${select} FROM tests t WHERE (${where.sql}) AND ${cond.join(' AND ')} ORDER BY ${segOrder} LIMIT ${want - rows.length}`,
        params,
      );
      rows.push(...r.rows);
    }
  }
  const more = rows.length > f.perPage;
  const page = rows.slice(0, f.perPage);
  const last = page[page.length - 1];
  const nextCursor =
    more && last
      ? encodeCursor(
          f.sortKey,
          f.sortOrder,
          byId ? String(last.test_id) : (last.sort_value ?? null),
          last.test_id,
        )
      : null;
  return {
    count,
    count_capped: capped,
    page_count: pageCount,
    page: f.page,
    max_display_count: f.perPage,
    testers: page.map(({ sort_value: _drop, ...r }) => r),
    next_cursor: nextCursor,
  };
}

/**
 * Every match in batches, by ascending test id (keyset on the primary key, so each batch is an index
 * range however deep the export goes). For the CSV export.
 */
export async function* testerBatches(db: Db, f: TesterFilter, batchSize = 1000): AsyncGenerator<TesterRow[]> {
  const { sql, params } = testerWhere(f);
  let last = 0;
  for (;;) {
    const n = params.length;
    const { rows } = await db.query<TesterRow>(
      `${ROW_SELECT} FROM tests t WHERE ${sql} AND t.id > $${n + 1} ORDER BY t.id LIMIT $${n + 2}`,
      [...params, last, batchSize],
    );
    if (rows.length === 0) return;
    yield rows;
    last = rows[rows.length - 1]!.test_id;
    if (rows.length < batchSize) return;
  }
}
