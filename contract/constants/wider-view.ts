// The wider view's constants (the examinee's screen, a guided room scan, a phone as a second camera): start-up
// flags, recorded streams, chat markers, examinee-log events. Plain values without TypeBox, so the SPA may
// import them; the schemas of its calls are in ../wider-view.ts.

/**
 * Start-up flags (0/1) of a tester URL, one per part (README "The wider view"):
 * - `is_screen_record`: the examinee shares the entire screen before the exam (a window or a tab is refused);
 *   it goes live to the checker and is recorded as its own recording. Not with `is_mobile` 1: mobile browsers
 *   cannot share a screen.
 * - `is_room_scan`: a guided room scan before the exam (turn the camera through 360°, the desk, under the
 *   desk), recorded as its own short recording; a checker may ask for another one during the exam.
 * - `is_phone_camera`: a phone paired by QR code publishes a second camera, live and recorded.
 */
export const WIDER_VIEW_PARAMS = {
  screen: 'is_screen_record',
  roomScan: 'is_room_scan',
  phone: 'is_phone_camera',
} as const;
export type WiderViewParam = (typeof WIDER_VIEW_PARAMS)[keyof typeof WIDER_VIEW_PARAMS];

/**
 * What a recording records (tester/recording.php `stream`): every stream of a sitting is its own series of
 * recordings, each its own resumable multipart upload, with its own segments and its own quota.
 * `camera` (camera and microphone: the spec's recording), `screen` (is_screen_record), `room_scan` (one guided
 * scan per recording, is_room_scan), `phone` (the paired phone's camera, is_phone_camera).
 */
export const STREAM_KINDS = ['camera', 'screen', 'room_scan', 'phone'] as const;
export type StreamKind = (typeof STREAM_KINDS)[number];

/** The start-up flag that must be 1 for a stream to be recorded. */
export const STREAM_FLAG: Record<StreamKind, string> = {
  camera: 'is_record',
  screen: WIDER_VIEW_PARAMS.screen,
  room_scan: WIDER_VIEW_PARAMS.roomScan,
  phone: WIDER_VIEW_PARAMS.phone,
};

/**
 * Chat markers of the wider view (kind `command`, spec §3 "Fixed signalling markers"). The server writes them as
 * the effect of tester/screen_share, tester/room_scan and tester/room_scan_request (a client cannot post them):
 * the screen shared or its share ended (from the examinee), a room scan asked for (from the checker), started
 * and completed (from the examinee).
 */
export const WIDER_VIEW_COMMANDS = {
  screenShared: 'SCREEN_SHARED',
  screenShareEnded: 'SCREEN_SHARE_ENDED',
  roomScanRequested: 'ROOM_SCAN_REQUESTED',
  roomScanStarted: 'ROOM_SCAN_STARTED',
  roomScanDone: 'ROOM_SCAN_DONE',
} as const;
export type WiderViewCommand = (typeof WIDER_VIEW_COMMANDS)[keyof typeof WIDER_VIEW_COMMANDS];

/** Examinee-log events of the wider view (spec §4 "Examinee log events", extended). */
export const WIDER_VIEW_LOG_EVENTS = [
  'screen_share_started',
  'screen_share_ended',
  'room_scan_requested',
  'room_scan_started',
  'room_scan_completed',
  'room_scan_interrupted',
] as const;

/**
 * What `getDisplayMedia` may return (`displaySurface` of the track's settings); only `monitor` (the entire
 * screen) is accepted.
 */
export const DISPLAY_SURFACES = ['monitor', 'window', 'browser', 'application'] as const;
export type DisplaySurface = (typeof DISPLAY_SURFACES)[number];

/** A room scan: asked for by a checker (`requested`), under way (`scanning`), `done`. */
export const ROOM_SCAN_STATUS = ['requested', 'scanning', 'done'] as const;
export type RoomScanStatus = (typeof ROOM_SCAN_STATUS)[number];
