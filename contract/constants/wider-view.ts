/**
 * The wider view: the examinee's screen, a guided room scan, and a phone as a second camera. Plain constants
 * (no schema code), so the SPA and the server import the same values.
 */

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
