import { Type, type Static } from 'typebox';
import { IdInteger, Int32 } from './common';
export * from './constants/examinees';

/**
 * A numeric filter from a query string: an integer, a digit string, or '' meaning "no filter" (the search
 * form sends every field, empty ones as '').
 */
export const OptionalInt = Type.Union([Int32, Type.Literal('')]);

/** A text filter; '' means "no filter". */
const Text = (maxLength: number) => Type.String({ maxLength });

/**
 * Examinee search request (spec §3), used by testers.php and downloadExamUserList.php.
 *
 * - `group` is an exam-group id, `group_text` an exam-group code; at most one of them.
 * - Dates are `yyyy-MM-dd` (or `yyyy/MM/dd`), times `HH:mm` or `HH:mm:ss`, in the deployment's time zone
 *   (Asia/Tokyo). A time needs the date on the same side; from must not be after to.
 * - `exam_name` is the examinee name: partial, case-insensitive match when `is_like_search` is 1, else exact.
 * - `record`, `with_mark`: 1 yes, 0 no. `score`: total score ≥. `ai_namematch`: name-match rate ≤.
 *   `cheating_level_from/to`: inclusive range. `mark_id`: has at least one marking of that mark.
 * - `sort_order`: 0 descending (default), 1 ascending. `page` starts at 1.
 * - `exact_count`: 1 to count beyond SEARCH_COUNT_CAP.
 * - `skip_count`: 1 when the caller already has the count of these filters (a later page of a search it
 *   has counted): the answer's `count`, `count_capped` and `page_count` are then null and no count is run.
 * - `cursor`: keyset paging. Pass the `next_cursor` of the previous answer (same filters, sort_key and
 *   sort_order) to get the rows after it; then `page` only labels the answer. Each cursor page costs an
 *   index range however deep it is, where `page` uses OFFSET (fine for the first pages).
 */
export const TesterSearchQuery = Type.Object({
  group: Type.Optional(OptionalInt),
  group_text: Type.Optional(Text(64)),
  login_id: Type.Optional(Text(128)),
  test_name: Type.Optional(Text(256)),
  region: Type.Optional(Text(256)),
  test_at_date_from: Type.Optional(Text(16)),
  test_at_date_to: Type.Optional(Text(16)),
  test_at_time_from: Type.Optional(Text(8)),
  test_at_time_to: Type.Optional(Text(8)),
  exam_name: Type.Optional(Text(256)),
  is_like_search: Type.Optional(OptionalInt),
  record: Type.Optional(OptionalInt),
  with_mark: Type.Optional(OptionalInt),
  cheating_level_from: Type.Optional(OptionalInt),
  cheating_level_to: Type.Optional(OptionalInt),
  score: Type.Optional(OptionalInt),
  ai_analysis_flag: Type.Optional(OptionalInt),
  ai_analysis_batch_flag: Type.Optional(OptionalInt),
  ai_namematch: Type.Optional(OptionalInt),
  mark_id: Type.Optional(OptionalInt),
  sort_key: Type.Optional(OptionalInt),
  sort_order: Type.Optional(OptionalInt),
  page: Type.Optional(OptionalInt),
  max_display_count: Type.Optional(OptionalInt),
  exact_count: Type.Optional(OptionalInt),
  skip_count: Type.Optional(OptionalInt),
  cursor: Type.Optional(Type.String({ maxLength: 512 })),
});
export type TesterSearchQuery = Static<typeof TesterSearchQuery>;

/**
 * One search row (spec §3). Times are ISO 8601 with the deployment zone's offset (README "Times"), or null;
 * the CSV export writes them as `yyyy-MM-dd HH:mm:ss` in that zone. `group` is the exam group's name.
 * `cheating_level` is 0 none … 3 high (README "Cheating level").
 */
export const TesterRow = Type.Object({
  test_id: Type.Integer(),
  group: Type.Union([Type.String(), Type.Null()]),
  group_id: Type.Union([Type.Integer(), Type.Null()]),
  test_name: Type.String(),
  region: Type.String(),
  test_at: Type.Union([Type.String(), Type.Null()]),
  stop_at: Type.Union([Type.String(), Type.Null()]),
  exam_name: Type.String(),
  with_mark: Type.Integer(),
  record: Type.Integer(),
  user_id: Type.Integer(),
  login_id: Type.String(),
  cheating_level: Type.Integer(),
  total_score: Type.Integer(),
  pass: Type.Union([Type.Integer(), Type.Null()]),
});
export type TesterRow = Static<typeof TesterRow>;

/**
 * Search response (spec §3). `count` is exact up to SEARCH_COUNT_CAP; beyond it `count` is the cap and
 * `count_capped` is true (page_count is then computed from the cap). With `skip_count=1` the three count
 * fields are null: the caller keeps the ones it has.
 */
export const TesterSearchResult = Type.Object({
  count: Type.Union([Type.Integer(), Type.Null()]),
  count_capped: Type.Union([Type.Boolean(), Type.Null()]),
  page_count: Type.Union([Type.Integer(), Type.Null()]),
  page: Type.Integer(),
  max_display_count: Type.Integer(),
  testers: Type.Array(TesterRow),
  /** Cursor for the rows after this page (pass it as `cursor`), null on the last page. */
  next_cursor: Type.Optional(Type.Union([Type.String(), Type.Null()])),
});
export type TesterSearchResult = Static<typeof TesterSearchResult>;

/** A value/label option of a select in the search form. */
export const ConditionOption = Type.Object({ value: Type.Integer(), label: Type.String() });
export type ConditionOption = Static<typeof ConditionOption>;

/**
 * Filter options (spec §3 "Filter options"), scoped to the caller's group for a test manager.
 * `test_names` and `regions` hold at most 1000 distinct values each; `times` are `HH:mm` every 30 minutes.
 */
export const TesterConditionsResult = Type.Object({
  groups: Type.Array(Type.Object({ id: Type.Integer(), code: Type.String(), name: Type.String() })),
  test_names: Type.Array(Type.String()),
  regions: Type.Array(Type.String()),
  records: Type.Array(ConditionOption),
  with_marks: Type.Array(ConditionOption),
  marks: Type.Array(Type.Object({ id: Type.Integer(), message: Type.String(), label: Type.String() })),
  cheating_level: Type.Array(Type.Integer()),
  ai_analysis_flag: Type.Array(ConditionOption),
  times: Type.Array(Type.String()),
});
export type TesterConditionsResult = Static<typeof TesterConditionsResult>;

/** test/pass GET query. */
export const TestPassQuery = Type.Object({
  test_id: Type.Union([IdInteger, Type.String({ pattern: '^[1-9][0-9]{0,17}$' })]),
});
export type TestPassQuery = Static<typeof TestPassQuery>;

/** test/pass POST: PUT sets pass (1), DELETE sets fail (0) (spec §4 "Test pass"). */
export const TestPassBody = Type.Object({
  test_id: Type.Union([IdInteger, Type.String({ pattern: '^[1-9][0-9]{0,17}$' })]),
  method: Type.Union([Type.Literal('PUT'), Type.Literal('DELETE')]),
});
export type TestPassBody = Static<typeof TestPassBody>;

/** test/pass result: `pass` 1 passed, 0 failed, null not decided yet. */
export const TestPassResult = Type.Object({
  test_id: Type.Integer(),
  pass: Type.Union([Type.Integer(), Type.Null()]),
});
export type TestPassResult = Static<typeof TestPassResult>;
