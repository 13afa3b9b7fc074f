// The analysis group's constants: analysis methods and sort keys.
// Plain values without TypeBox, so the SPA may import them (contract/README.md).

/** Analysis methods of spec §9 (`analysis_status`): 1 every 2 s, 2 every 3 s, 3 every 5 s, 4 every minute,
 * 5 ten frames 2 s apart every 3 minutes. */
export const ANALYSIS_METHOD_LABELS = {
  1: 'every 2 s',
  2: 'every 3 s',
  3: 'every 5 s',
  4: 'every 1 minute',
  5: '10 times at 2-second intervals every 3 minutes',
} as const;

/** Sort keys of analysis_request/index. */
export const ANALYSIS_SORT_KEYS = [
  'id',
  'inseq',
  'status',
  'env',
  'result',
  'created_at',
  'updated_at',
] as const;
