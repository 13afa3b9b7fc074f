import { ACTOR, ALL_ACTORS, Envelope } from '../../../../../../contract/common';
import {
  TestMarkingsQuery,
  TestMarkingsResult,
  TestStatusBody,
  TestStatusResult,
  type TestStatusBody as TestStatusBodyT,
} from '../../../../../../contract/tester';
import { ApiError } from '../../../../lib/api-error';
import type { App, AuthContext } from '../../../../lib/app-types';
import { appImageStore } from '../../../../lib/images';
import { recordExamProcess } from '../../../../lib/sittings/exam-process';
import { loadMarkings, loadRecords } from '../../../../lib/tester/detail';
import {
  assertCanView,
  findCurrentSitting,
  findSitting,
  loadTester,
  type SittingRow,
} from '../../../../lib/sittings/sittings';

/** test/status, exam/status and test/markings (spec §7). */
export default async function testRoutes(app: App): Promise<void> {
  /** Records the caller's own exam process; a body naming another login id is refused. */
  async function setExamProcess(auth: AuthContext, b: TestStatusBodyT, source: 'test' | 'exam') {
    if (b.login_id !== undefined && b.login_id.trim() !== '' && b.login_id.trim() !== auth.loginId) {
      throw new ApiError(403, 'forbidden', 'A tester can only report its own exam status.');
    }
    return recordExamProcess(app.db, auth.userId, b, source);
  }

  app.post(
    '/test/status.php',
    {
      config: { access: [ACTOR.tester] },
      schema: { body: TestStatusBody, response: { 200: Envelope(TestStatusResult) } },
    },
    async (request, reply) => reply.ok(await setExamProcess(request.auth!, request.body, 'test')),
  );

  app.post(
    '/exam/status.php',
    {
      config: { access: [ACTOR.tester] },
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
        if (auth.actor !== ACTOR.tester) throw new ApiError(400, 'validation', 'test_id is required.');
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
