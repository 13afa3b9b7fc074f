// The capture group's constants: live stills: capture types, sensitivities, flags, limits.
// Plain values without TypeBox, so the SPA may import them (contract/README.md).

/**
 * Live stills of the exam (start-up parameters `capture_interval` 0–3600 s, 0 = off; `capture_type` 0 no AI
 * check, 1 AI realtime, 2 AI post analysis; `is_capture_show` show the stills on the monitor screen;
 * `ai_sensitivity` strict | standard | relaxed).
 */
export const CAPTURE_TYPE = { none: 0, realtime: 1, post: 2 } as const;

/** A sitting's sensitivity (short-URL form); `standard` when the start-up parameters name none. */
export const SENSITIVITIES = ['strict', 'standard', 'relaxed'] as const;
export type Sensitivity = (typeof SENSITIVITIES)[number];

/** What a still can show: nobody, more than one person, someone other than the head shot, the face turned away. */
export const CAPTURE_FLAGS = ['no_face', 'several_people', 'other_person', 'looking_away'] as const;
export type CaptureFlag = (typeof CAPTURE_FLAGS)[number];

/** Largest still the server keeps (bytes of the decoded JPEG/PNG/WebP): the page sends about 20–60 KB. */
export const CAPTURE_MAX_BYTES = 512 * 1024;

/** Oldest age a still may claim (a page's queue never holds one this long). */
export const CAPTURE_MAX_AGE_MS = 3_600_000;

/** How far back the per-pane timeline reaches (minutes). */
export const LIVE_TIMELINE_MINUTES = 10;

/** Longest a checker's feed request waits for news (seconds). */
export const LIVE_FEED_MAX_WAIT_SECONDS = 25;
