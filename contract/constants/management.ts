// The management group's constants: retention groups and bounds, analysis and ID-card types.
// Plain values without TypeBox, so the SPA may import them (contract/README.md).

/** Special group ids of the retention settings (spec §3 "Delete-setting row"). */
export const CLEANER_GROUP = { systemLog: -1, monitorHistory: -2, default: -3 } as const;
export const RETENTION_DAYS_MIN = 1;
export const RETENTION_DAYS_MAX = 36500;

/** Analysis types of spec §1. */
export const ANALYSIS_TYPES = ['eye_rot', 'other_person', 'people_num', 'voice'] as const;
/** Public ID types: 1 driver's licence, 2 passport, 3 My Number card. */
export const ID_CARD_TYPES = [1, 2, 3] as const;
