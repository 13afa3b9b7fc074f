import { Envelope } from '../../../../../../contract/common';
import {
  RoomScan,
  RoomScanBody,
  RoomScanRequestBody,
  ScreenShareBody,
  WiderViewState,
} from '../../../../../../contract/wider-view';
import { ApiError } from '../../../../lib/api-error';
import type { App } from '../../../../lib/app-types';
import { findMatching, findOpenSitting, requireOpenSitting } from '../../../../lib/sittings/sittings';
import {
  completeRoomScan,
  reportScreenShare,
  requestRoomScan,
  startRoomScan,
  widerViewState,
} from '../../../../lib/wider-view/wider-view';

const kicked = () => new ApiError(403, 'kicked', 'The tester was kicked out; a manager must lift it first.');

/**
 * The wider view (README "The wider view"): the examinee's page reports its screen share and its room scans,
 * reads where they stand after a reload, and the matched checker asks for a room scan during the exam.
 */
export default async function widerViewRoutes(app: App): Promise<void> {
  app.get(
    '/tester/wider_view.php',
    { config: { access: [1] }, schema: { response: { 200: Envelope(WiderViewState) } } },
    async (request, reply) => {
      const s = await requireOpenSitting(app.db, request.auth!.userId);
      reply.header('Cache-Control', 'no-store');
      return reply.ok(await widerViewState(app.db, s));
    },
  );

  app.post(
    '/tester/screen_share.php',
    {
      config: { access: [1] },
      schema: { body: ScreenShareBody, response: { 200: Envelope(WiderViewState) } },
    },
    async (request, reply) => {
      const s = await requireOpenSitting(app.db, request.auth!.userId);
      // A kicked examinee's page may still say its share ended; it may not start one.
      if (s.kicked && request.body.state === 'shared') throw kicked();
      await reportScreenShare(
        app.db,
        s,
        request.body.state,
        request.body.surface,
        request.body.reloaded === true,
      );
      return reply.ok(await widerViewState(app.db, s));
    },
  );

  app.post(
    '/tester/room_scan.php',
    {
      config: { access: [1] },
      schema: { body: RoomScanBody, response: { 200: Envelope(RoomScan) } },
    },
    async (request, reply) => {
      const s = await requireOpenSitting(app.db, request.auth!.userId);
      if (s.kicked) throw kicked();
      const b = request.body;
      if (b.action === 'start') return reply.ok(await startRoomScan(app.db, s, b.attempt));
      if (b.scan_id === undefined)
        throw new ApiError(400, 'validation', 'scan_id is required with action done.');
      const recordId = b.record_id === undefined || b.record_id === null ? null : Number(b.record_id);
      return reply.ok(await completeRoomScan(app.db, s, Number(b.scan_id), recordId));
    },
  );

  app.post(
    '/tester/room_scan_request.php',
    {
      // The checker watching the examinee now: only it sees what a scan shows.
      config: { access: [2] },
      schema: { body: RoomScanRequestBody, response: { 200: Envelope(RoomScan) } },
    },
    async (request, reply) => {
      const auth = request.auth!;
      const testerId = Number(request.body.tester_id);
      const matching = await findMatching(app.db, auth.userId, testerId);
      if (!matching) throw new ApiError(403, 'not_matched', 'You are not matched to this tester.');
      const s = await findOpenSitting(app.db, testerId);
      if (!s || s.id !== Number(matching.test_id))
        throw new ApiError(409, 'no_open_sitting', 'The examinee has no open sitting.');
      if (s.kicked) throw kicked();
      return reply.ok(await requestRoomScan(app.db, s, { userId: auth.userId, loginId: auth.loginId }));
    },
  );
}
