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
import { MANAGEMENT_TIME_ZONE, parseDate, parseTime, sqlDisplayTime, sqlWireTime } from './management-time';

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
  /** The caller already has the count of these filters (`skip_count=1`, a later page): do not count again. */
  skipCount: boolean;
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
    skipCount: flag(q.skip_count, 'skip_count') === 1,
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
    // Fuzzy: the rows of `exam_name ILIKE pattern`, asked of the lower-cased copy of the name (migration
    // 0070), which a trigram index and the date indexes carry. The btree of 0004 serves equality.
    if (f.likeSearch) {
      w.push(`t.exam_name_folded LIKE lower(${p('%' + likeEscape(f.examName) + '%')}) ESCAPE '\\'`);
    } else w.push(`t.exam_name = ${p(f.examName)}`);
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
    // The sitting's distinct mark ids, copied from markings by a trigger (migration 0009), NULL without marks
    // (0070): the containment test implies `mark_ids IS NOT NULL`, so the partial indexes of the marked
    // sittings (GIN, and by date) serve it with no second clause to spoil the planner's estimate.
    w.push(`t.mark_ids @> ARRAY[${p(f.markId)}::bigint]`);
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

/** The SQL of each field of a search row (spec §3); ROW_SELECT and the CSV export are built from it. */
const ROW_COLUMNS = {
  test_id: 't.id',
  group: 't.group_name',
  group_id: 't.group_id',
  test_name: 't.test_name',
  region: 't.region',
  test_at: sqlWireTime('t.test_at'),
  stop_at: sqlWireTime('t.stop_at'),
  exam_name: 't.exam_name',
  with_mark: 't.with_mark::int',
  record: 't.record::int',
  user_id: 't.user_id',
  login_id: 't.login_id',
  cheating_level: 't.cheating_level',
  total_score: 't.total_score',
  pass: 't.pass::int',
} as const satisfies Record<keyof TesterRow, string>;

/** The CSV text of the time fields: the wall clock the SPA shows for them, to the second. */
const CSV_COLUMNS: Record<keyof TesterRow, string> = {
  ...ROW_COLUMNS,
  test_at: sqlDisplayTime('t.test_at'),
  stop_at: sqlDisplayTime('t.stop_at'),
};

const ROW_SELECT = `SELECT ${Object.entries(ROW_COLUMNS)
  .map(([k, e]) => `${e} AS "${k}"`)
  .join(', ')}`;

/**
 * Runs one search's statements planned for the values asked. db.ts prepares each statement text once per
 * PostgreSQL connection, and after five runs PostgreSQL may keep a generic plan, costed without the values: a
 * fuzzy name's `LIKE $1` as 0.5 % of the rows whatever the fragment, `total_score >= $1` as a third. For a
 * search that picks the wrong index for most values (a fuzzy "tanaka" jumping to page 200: a bitmap of its
 * 100k matches and a sort, 0.7 s, where the plan for the value walks the date index). Planning a search costs
 * about a millisecond. PGlite runs every statement unnamed, so planned for its values already.
 */
async function valuePlanned<T>(db: Db, fn: (db: Db) => Promise<T>): Promise<T> {
  if (db.kind !== 'postgres') return fn(db);
  return db.transaction(async (tx) => {
    await tx.exec('SET LOCAL plan_cache_mode = force_custom_plan');
    return fn(tx);
  });
}

/**
 * Counts matches, stopping at `cap + 1` rows so a broad filter over a million rows costs a bounded scan
 * (perf-reliability §4: "counts above 10k return ≥ 10,000 unless an exact count is asked for").
 */
export async function countTesters(
  db: Db,
  f: TesterFilter,
  cap: number | null,
): Promise<{ count: number; capped: boolean }> {
  return valuePlanned(db, (tx) => countIn(tx, f, cap));
}

async function countIn(
  db: Db,
  f: TesterFilter,
  cap: number | null,
): Promise<{ count: number; capped: boolean }> {
  const { sql, params } = testerWhere(f);
  if (cap === null) {
    const r = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM tests t WHERE ${sql}`, params);
    return { count: r.rows[0]?.n ?? 0, capped: false };
  }
  // A fuzzy name is counted in date order, so along a date index, which carries the folded name (migration
  // 0070): each row tested is an index entry, and the walk stops at the cap. Unordered, the planner counts
  // from the trigram index, which first collects every match of every trigram of the fragment: for "tanaka"
  // (1 row in 10) posting lists of 200k–300k entries each, 2–3 times the cost of the walk at 1M rows. A rare
  // fragment still goes to the trigram index (a bitmap, and a sort of its few matches).
  const order = f.examName !== null && f.likeSearch ? ' ORDER BY t.test_at DESC, t.id DESC' : '';
  const r = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM (SELECT 1 FROM tests t WHERE ${sql}${order} LIMIT ${cap + 1}) s`,
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
 * The rows of one page, the page's ids found first and then only those rows read. The id query can walk the
 * sort index alone, testing the filters on its entries: the date and group-name indexes carry the columns of
 * the scalar filters and the folded name (migration 0070). So each row passed over (skipped by the OFFSET, or
 * rejected by a filter, as most are under a sparse filter) costs an index entry instead of a table row.
 */
function pageSql(select: string, whereSql: string, order: string, limit: number, offset = 0): string {
  return `${select} FROM tests t
    JOIN (SELECT t.id FROM tests t WHERE ${whereSql} ORDER BY ${order} LIMIT ${limit}${offset > 0 ? ` OFFSET ${offset}` : ''}) k
      ON k.id = t.id
    ORDER BY ${order}`;
}

/**
 * One page of the examinee search. Two ways to page, same order (sort column, then id, both in the sort
 * direction; NULLs first when descending, last when ascending, as PostgreSQL orders them):
 * - `page` (OFFSET): what a jump to a page number uses. When the exact count is known and the page lies in
 *   the second half, it is read from the end (the reverse order, offset from the end), so the last page
 *   costs what the first does.
 * - `cursor` (keyset, from the previous answer's `next_cursor`): each page is an index range after the last
 *   row seen, however deep. A nullable sort column is read as two segments (NULLs, then values, or the
 *   reverse) so every condition stays a plain index range. The screen uses it for next/previous.
 * `next_cursor` is given on every answer that has more rows after it.
 *
 * The count (capped at SEARCH_COUNT_CAP unless `exact_count`) is skipped with `skip_count`, and not run when
 * the first page already holds every match.
 */
export async function searchTesters(db: Db, f: TesterFilter): Promise<TesterSearchResult> {
  return valuePlanned(db, (tx) => searchIn(tx, f));
}

async function searchIn(db: Db, f: TesterFilter): Promise<TesterSearchResult> {
  const cap = f.exactCount ? null : SEARCH_COUNT_CAP;
  const where = testerWhere(f);
  const desc = f.sortOrder === 0;
  const dir = desc ? 'DESC' : 'ASC';
  const col = SORT_COLUMNS[f.sortKey] ?? SORT_COLUMNS[4]!;
  const byId = col.expr === 't.id';
  const select = byId ? ROW_SELECT : `${ROW_SELECT}, ${col.expr}::text AS sort_value`;
  const order = byId ? `t.id ${dir}` : `${col.expr} ${dir}, t.id ${dir}`;
  const want = f.perPage + 1; // one more than a page tells whether a next page exists

  let counted: { count: number; capped: boolean } | null = null;
  let rows: SortedRow[];
  let more: boolean;
  if (f.after === null) {
    const offset = (f.page - 1) * f.perPage;
    if (offset > 0 && !f.skipCount) counted = await countIn(db, f, cap);
    const exact = counted !== null && !counted.capped ? counted.count : null;
    if (exact !== null && offset >= exact) {
      rows = [];
      more = false;
    } else if (exact !== null && 2 * offset + f.perPage > exact) {
      // The page is nearer the end: the same rows, read backwards from the end.
      const lim = Math.min(f.perPage, exact - offset);
      const fromEnd = exact - offset - lim;
      const rdir = desc ? 'ASC' : 'DESC';
      const reverse = byId ? `t.id ${rdir}` : `${col.expr} ${rdir}, t.id ${rdir}`;
      rows = (await db.query<SortedRow>(pageSql(select, where.sql, reverse, lim, fromEnd), where.params))
        .rows;
      rows.reverse();
      more = fromEnd > 0;
    } else {
      rows = (await db.query<SortedRow>(pageSql(select, where.sql, order, want, offset), where.params)).rows;
      more = rows.length > f.perPage;
      // The first page holds every match: that is the count.
      if (offset === 0 && !more && !f.skipCount) counted = { count: rows.length, capped: false };
    }
  } else {
    rows = await keysetPage(db, f, where, col, order, want);
    more = rows.length > f.perPage;
  }
  if (counted === null && !f.skipCount) counted = await countIn(db, f, cap);

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
    count: counted?.count ?? null,
    count_capped: counted?.capped ?? null,
    page_count: counted ? Math.max(1, Math.ceil(counted.count / f.perPage)) : null,
    page: f.page,
    max_display_count: f.perPage,
    testers: page.map(({ sort_value: _drop, ...r }) => r),
    next_cursor: nextCursor,
  };
}

/** The rows after a keyset cursor (`f.after`), up to `want` of them. */
async function keysetPage(
  db: Db,
  f: TesterFilter,
  where: { sql: string; params: unknown[] },
  col: { expr: string; type: string; nullable: boolean },
  order: string,
  want: number,
): Promise<SortedRow[]> {
  const after = f.after!;
  const desc = f.sortOrder === 0;
  const dir = desc ? 'DESC' : 'ASC';
  const byId = col.expr === 't.id';
  const select = byId ? ROW_SELECT : `${ROW_SELECT}, ${col.expr}::text AS sort_value`;
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
  const rows: SortedRow[] = [];
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
      pageSql(select, `(${where.sql}) AND ${cond.join(' AND ')}`, segOrder, want - rows.length),
      params,
    );
    rows.push(...r.rows);
  }
  return rows;
}

/** One value of a search row as the export writes it. */
export type TesterValue = string | number | null;

/**
 * Every match in batches, by ascending test id (keyset on the primary key, so each batch is an index
 * range however deep the export goes), each row as the values of `fields` in that order, times as
 * `yyyy-MM-dd HH:mm:ss` in the deployment's zone. For the CSV export.
 *
 * On PGlite a batch comes back as one JSON text (`json_agg` of arrays) rather than as rows of columns:
 * PGlite copies every field of every row out of its buffer on its own, which at 100k rows cost more than the
 * rest of the export; one field per batch and one JSON.parse cost a fraction of it. node-postgres decodes
 * rows cheaply and building the JSON costs PostgreSQL more than that, so there the rows come as they are.
 */
export async function* testerValueBatches(
  db: Db,
  f: TesterFilter,
  fields: readonly (keyof TesterRow)[],
  batchSize = 1000,
): AsyncGenerator<TesterValue[][]> {
  const { sql, params } = testerWhere(f);
  const n = params.length;
  const cols = fields.map((k, i) => `${CSV_COLUMNS[k]} AS c${i}`).join(', ');
  const page = `SELECT t.id AS k, ${cols} FROM tests t WHERE ${sql} AND t.id > $${n + 1} ORDER BY t.id LIMIT $${n + 2}`;
  const asJson = `SELECT json_agg(json_build_array(${fields.map((_, i) => `r.c${i}`).join(', ')}) ORDER BY r.k)::text AS batch,
      max(r.k) AS last FROM (${page}) r`;
  let last = 0;
  for (;;) {
    const args = [...params, last, batchSize];
    let batch: TesterValue[][];
    if (db.kind === 'pglite') {
      const r = (await db.query<{ batch: string | null; last: number | null }>(asJson, args)).rows[0];
      if (!r?.batch || r.last === null) return; // json_agg over no rows is NULL
      batch = JSON.parse(r.batch) as TesterValue[][];
      last = r.last;
    } else {
      const { rows } = await db.query<Record<string, TesterValue>>(page, args);
      if (rows.length === 0) return;
      batch = rows.map((row) => fields.map((_, i) => row[`c${i}`] ?? null));
      last = rows[rows.length - 1]!.k as number;
    }
    yield batch;
    if (batch.length < batchSize) return;
  }
}
