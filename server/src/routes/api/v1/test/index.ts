import { ALL_ACTORS, Envelope } from '../../../../../../contract/common';
import {
  EXAM_PROCESS,
  TEST_STATUS,
  TestMarkingsQuery,
  TestMarkingsResult,
  TestStatusBody,
  TestStatusResult,
  type TestStatusBody as TestStatusBodyT,
} from '../../../../../../contract/tester';
import { ApiError } from '../../../../lib/api-error';
import type { App, AuthContext } from '../../../../lib/app-types';
import { appImageStore } from '../../../../lib/images';
import { loadMarkings, loadRecords } from '../../../../lib/tester/detail';
import {
  assertCanView,
  findCurrentSitting,
  findSitting,
  loadTester,
  logExamineeEvent,
  type SittingRow,
} from '../../../../lib/sittings/sittings';

/**
 * spec §3: exam process code → test state. start → START, restart → RESUME, stop → END,
 * suspend → INTERRUPTION, relogin → RESUME (the examinee came back to a running exam).
 */
const PROCESS_TO_TEST_STATUS: Readonly<Record<number, number>> = {
  [EXAM_PROCESS.start]: TEST_STATUS.start,
  [EXAM_PROCESS.restart]: TEST_STATUS.resume,
  [EXAM_PROCESS.stop]: TEST_STATUS.end,
  [EXAM_PROCESS.suspend]: TEST_STATUS.interruption,
  [EXAM_PROCESS.relogin]: TEST_STATUS.resume,
};

/** test/status, exam/status and test/markings (spec §7). */
export default async function testRoutes(app: App): Promise<void> {
  /**
   * Records the exam process of the caller's own open sitting. `source` tells the two calls apart in the
   * examinee log: 'test' (the proctoring page's own process) or 'exam' (the external exam system's status).
   */
  async function setExamProcess(auth: AuthContext, b: TestStatusBodyT, source: 'test' | 'exam') {
    if (b.login_id !== undefined && b.login_id.trim() !== '' && b.login_id.trim() !== auth.loginId) {
      throw new ApiError(403, 'forbidden', 'A tester can only report its own exam status.');
    }
    const testStatus = PROCESS_TO_TEST_STATUS[b.process]!;
    return app.db.transaction(async (tx) => {
      const open = await tx.query<SittingRow>(
        `SELECT * FROM tests WHERE user_id = $1 AND status < 7 ORDER BY id DESC LIMIT 1 FOR UPDATE`,
        [auth.userId],
      );
      const s = open.rows[0];
      if (!s)
        throw new ApiError(409, 'invalid_transition', 'The exam is finished or the tester is not logged in.');
      // group_id / group are accepted but not applied: a tester must not move its sitting to another group
      // (that would change which test manager can see it). test_name and region fill in only what the start-up
      // parameters left empty: an exam's name and venue fixed by its short URL are not the examinee's to change.
      await tx.query(
        `UPDATE tests SET exam_process = $2::smallint, test_status = $3::smallint,
                term_set_code = coalesce(nullif($4, ''), term_set_code),
                eai = coalesce(nullif($5, ''), eai),
                test_name = CASE WHEN test_name = '' THEN $6 ELSE test_name END,
                region = CASE WHEN region = '' THEN $7 ELSE region END,
                test_at = CASE WHEN $2::smallint = 0 THEN coalesce(test_at, now()) ELSE test_at END,
                updated_at = now()
          WHERE id = $1`,
        [s.id, b.process, testStatus, b.term_set_code ?? '', b.eai ?? '', b.test_name ?? '', b.region ?? ''],
      );
      await logExamineeEvent(tx, s.id, `${source}_status`, `process=${b.process} test_status=${testStatus}`);
      return { test_id: s.id, test_status: testStatus, exam_process: b.process };
    });
  }

  app.post(
    '/test/status.php',
    {
      config: { access: [1] },
      schema: { body: TestStatusBody, response: { 200: Envelope(TestStatusResult) } },
    },
    async (request, reply) => reply.ok(await setExamProcess(request.auth!, request.body, 'test')),
  );

  app.post(
    '/exam/status.php',
    {
      config: { access: [1] },
      schema: { body: TestStatusBody, response: { 200: Envelope(TestStatusResult) } },
    },
    async (request, reply) => reply.ok(await setExamProcess(request.auth!, request.body, 'exam')),
  );

  app.get(
    '/test/markings.php',
    {
      config: { access: ALL_ACTORS },
      schema: { querystring: TestMarkingsQuery, response: { 200: Envelope(TestMarkingsResult) } },
    },
    async (request, reply) => {
      const auth = request.auth!;
      const testId = request.query.test_id;
      let sitting: SittingRow | null;
      if (testId === undefined) {
        if (auth.actor !== 1) throw new ApiError(400, 'validation', 'test_id is required.');
        sitting = await findCurrentSitting(app.db, auth.userId);
        if (!sitting) throw new ApiError(404, 'sitting_not_found', 'The tester has no sitting yet.');
      } else {
        sitting = await findSitting(app.db, testId);
        if (!sitting) throw new ApiError(404, 'sitting_not_found', 'No such sitting.');
      }
      const tester = await loadTester(app.db, sitting.user_id);
      await assertCanView(app.db, auth, tester);
      const [markings, records] = await Promise.all([
        loadMarkings(app.db, sitting.id, (key) => appImageStore(app).url(key)),
        loadRecords(app.db, sitting.id),
      ]);
      return reply.ok({
        test_id: sitting.id,
        markings,
        marking_total_score: markings.reduce((s, m) => s + m.score, 0),
        records,
      });
    },
  );
}
