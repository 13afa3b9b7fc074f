// The examinees group's constants: examinee search sort keys and page sizes.
// Plain values without TypeBox, so the SPA may import them (contract/README.md).

/**
 * Sort keys of the examinee search (spec §2 result-table columns, in column order, then two extra keys).
 * 1 group, 2 test name, 3 venue, 4 test datetime (default), 5 examinee name, 6 marking, 7 score,
 * 8 saved data (record), 9 login id, 10 cheating level, 11 test id.
 */
export const TESTER_SORT_KEYS = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11] as const;

/** Display counts allowed per page (inclusive). */
export const MAX_DISPLAY_COUNT_MIN = 10;
export const MAX_DISPLAY_COUNT_MAX = 500;
export const MAX_DISPLAY_COUNT_DEFAULT = 50;

/** Above this many matches the search answers `count: 10000, count_capped: true` unless `exact_count=1`. */
export const SEARCH_COUNT_CAP = 10_000;
