/**
 * The guided room scan (README "The wider view"): what the examinee shows, in order, and how long each step
 * lasts. The countdown runs over all of them; the examinee may stop earlier once the room is shown.
 */
export const ROOM_SCAN_STEPS = [
  /** Turn the camera (or the laptop) slowly through 360° so the whole room is seen. */
  { id: 'room', seconds: 30 },
  /** Show the top of the desk: nothing on it but what the exam allows. */
  { id: 'desk', seconds: 15 },
  /** Tilt the camera down: under the desk. */
  { id: 'underDesk', seconds: 15 },
] as const;
export type RoomScanStepId = (typeof ROOM_SCAN_STEPS)[number]['id'];

/** The whole scan, in seconds. */
export const ROOM_SCAN_SECONDS = ROOM_SCAN_STEPS.reduce((n, s) => n + s.seconds, 0);

/** The examinee may stop the scan after this many seconds (the room has been shown), not before. */
export const ROOM_SCAN_MIN_SECONDS = ROOM_SCAN_STEPS[0].seconds;

/** Where a scan that started `elapsedMs` ago stands: the current step, and seconds left in it and in all. */
export function scanProgress(elapsedMs: number): {
  step: number;
  stepLeft: number;
  totalLeft: number;
  over: boolean;
} {
  const elapsed = Math.max(0, Math.floor(elapsedMs / 1000));
  let start = 0;
  for (let i = 0; i < ROOM_SCAN_STEPS.length; i++) {
    const end = start + ROOM_SCAN_STEPS[i]!.seconds;
    if (elapsed < end)
      return { step: i, stepLeft: end - elapsed, totalLeft: ROOM_SCAN_SECONDS - elapsed, over: false };
    start = end;
  }
  return { step: ROOM_SCAN_STEPS.length - 1, stepLeft: 0, totalLeft: 0, over: true };
}
