/** How a short-URL form field is entered. */
export type FieldKind =
  | { kind: 'text'; max?: number; multiline?: boolean }
  | { kind: 'number'; min: number; max: number }
  | { kind: 'flag' }
  | { kind: 'select'; options: readonly (string | number)[] }
  | { kind: 'multi'; options: readonly (string | number)[] };

/**
 * The start-up parameters a short URL carries (spec §3 "Short-URL form fields"), by their start-up query
 * names; labels are `management:shortUrl.fields.<name>`, option labels `management:shortUrl.options.<name>.<value>`.
 */
export const PARAM_FIELDS: readonly (readonly [string, FieldKind])[] = [
  ['lang', { kind: 'select', options: ['ja', 'en', 'zn'] }],
  ['is_mobile', { kind: 'flag' }],
  ['is_mc_startup', { kind: 'flag' }],
  ['is_proctor', { kind: 'flag' }],
  ['is_auth', { kind: 'flag' }],
  ['exam_url', { kind: 'text', max: 2048 }],
  ['region', { kind: 'text', max: 256 }],
  ['exam_name', { kind: 'text', max: 256 }],
  ['exam_datetime', { kind: 'text', max: 32 }],
  ['is_voice_recording', { kind: 'flag' }],
  ['is_record', { kind: 'flag' }],
  ['is_summary', { kind: 'flag' }],
  ['max_rectime', { kind: 'number', min: 0, max: 1_000_000 }],
  ['matching_timeout', { kind: 'number', min: 0, max: 86_400 }],
  ['tester_retry', { kind: 'number', min: 0, max: 1000 }],
  ['checker_retry', { kind: 'number', min: 0, max: 1000 }],
  ['webrtc_timeout', { kind: 'number', min: 0, max: 86_400 }],
  ['intervaltime', { kind: 'number', min: 0, max: 100_000 }],
  ['webrtc_max_time', { kind: 'number', min: 0, max: 1_000_000 }],
  ['is_debug', { kind: 'flag' }],
  ['is_conv', { kind: 'flag' }],
  ['video_recording_preference', { kind: 'number', min: 1, max: 20 }],
  ['voice_quality_preference', { kind: 'number', min: 1, max: 10 }],
  ['selected_analysis_types', { kind: 'multi', options: ['eye_rot', 'other_person', 'people_num', 'voice'] }],
  ['password_url', { kind: 'text', max: 2048 }],
  ['memo', { kind: 'text', max: 500, multiline: true }],
  ['term_set_code', { kind: 'text', max: 30 }],
  ['mode', { kind: 'number', min: 0, max: 99 }],
  ['is_ai_auth', { kind: 'select', options: [0, 1] }],
  ['is_ai_faild_manual', { kind: 'select', options: [0, 1, 2] }],
  ['is_ai_idcard_request', { kind: 'flag' }],
  ['ai_face_retry', { kind: 'number', min: 0, max: 1000 }],
  ['ai_idcard_retry', { kind: 'number', min: 0, max: 1000 }],
  ['ai_all_retry', { kind: 'number', min: 0, max: 1000 }],
  ['ai_namematch', { kind: 'number', min: 1, max: 100 }],
  ['ai_idcard_type', { kind: 'multi', options: [1, 2, 3] }],
  ['capture_interval', { kind: 'number', min: 0, max: 3600 }],
  ['capture_type', { kind: 'select', options: [0, 1, 2] }],
  ['is_capture_show', { kind: 'flag' }],
  ['group', { kind: 'text', max: 64 }],
  ['ai_sensitivity', { kind: 'select', options: ['strict', 'standard', 'relaxed'] }],
  // The wider view (contract WIDER_VIEW_PARAMS): screen, room scan, phone as a second camera.
  ['is_screen_record', { kind: 'flag' }],
  ['is_room_scan', { kind: 'flag' }],
  ['is_phone_camera', { kind: 'flag' }],
];
