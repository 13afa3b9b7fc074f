import { Type, type Static, type TSchema } from 'typebox';
import { Id } from './common';

export * from './constants/wider-view';

const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);

/**
 * POST tester/screen_share.php (the examinee, a sitting with is_screen_record): what the page's screen share is
 * now. `shared` with the track's `displaySurface` (only `monitor`, the entire screen, is accepted: 400
 * otherwise); `ended` when the share stopped (the browser's "stop sharing", the track ended, or a reloaded page
 * that no longer has it). A change is logged and told to the checker.
 */
export const ScreenShareBody = Type.Object({
  state: Type.Union([Type.Literal('shared'), Type.Literal('ended')]),
  surface: Type.Optional(
    Type.Union([
      Type.Literal('monitor'),
      Type.Literal('window'),
      Type.Literal('browser'),
      Type.Literal('application'),
    ]),
  ),
  /**
   * With `ended`: the page was reloaded (or reopened) and never held the share. Its screen recording, if one was
   * open, is then left by the page that made it: the server completes it after the grace, marked interrupted.
   */
  reloaded: Type.Optional(Type.Boolean()),
});
export type ScreenShareBody = Static<typeof ScreenShareBody>;

/** One room scan (ROOM_SCAN_STATUS); `requested_by_checker` false for the scan before the exam. */
export const RoomScan = Type.Object({
  id: Type.Integer(),
  status: Type.Union([Type.Literal('requested'), Type.Literal('scanning'), Type.Literal('done')]),
  requested_by_checker: Type.Boolean(),
  requested_at: Nullable(Type.String()),
  started_at: Nullable(Type.String()),
  completed_at: Nullable(Type.String()),
  record_id: Nullable(Type.Integer()),
});
export type RoomScan = Static<typeof RoomScan>;

/**
 * GET tester/wider_view.php (the examinee): where the sitting's wider view stands, so a page that was reloaded
 * knows what to ask again. `screen.state` is the last report (null: none yet); `room_scan.done` counts the
 * completed scans, `room_scan.current` is the open one (asked for by a checker, or under way).
 */
export const WiderViewState = Type.Object({
  screen: Type.Object({
    required: Type.Boolean(),
    state: Nullable(Type.Union([Type.Literal('shared'), Type.Literal('ended')])),
    changed_at: Nullable(Type.String()),
  }),
  room_scan: Type.Object({
    required: Type.Boolean(),
    done: Type.Integer(),
    current: Nullable(RoomScan),
  }),
  phone: Type.Object({ required: Type.Boolean() }),
});
export type WiderViewState = Static<typeof WiderViewState>;

/**
 * POST tester/room_scan.php (the examinee, a sitting with is_room_scan): `start` begins the open scan (the one a
 * checker asked for, else a new one); `done` completes the scan `scan_id` under way, with its recording
 * (`record_id`, a room_scan recording of this sitting) when one was made. Both are logged and told to the checker.
 */
export const RoomScanBody = Type.Object({
  action: Type.Union([Type.Literal('start'), Type.Literal('done')]),
  /**
   * With `start`: the page's token for this press of "start the scan", the same on its retries. A scan under way
   * started again with another token (a reloaded page) is closed as interrupted and a new one starts.
   */
  attempt: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  scan_id: Type.Optional(Id),
  record_id: Type.Optional(Type.Union([Id, Type.Null()])),
});
export type RoomScanBody = Static<typeof RoomScanBody>;

/**
 * POST tester/room_scan_request.php (the matched checker): asks the examinee for a room scan now. The examinee's
 * page shows the instructions at once (ROOM_SCAN_REQUESTED); asking while one is open answers that one.
 */
export const RoomScanRequestBody = Type.Object({ tester_id: Id });
export type RoomScanRequestBody = Static<typeof RoomScanRequestBody>;
