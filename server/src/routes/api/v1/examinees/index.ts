import {
  TestPassBody,
  TestPassQuery,
  TestPassResult,
  TesterConditionsResult,
  TesterSearchQuery,
  TesterSearchResult,
  type TesterRow,
} from '../../../../../../contract/examinees';
import { Envelope, MANAGER_ACTORS } from '../../../../../../contract/common';
import { ApiError } from '../../../../lib/api-error';
import type { App } from '../../../../lib/app-types';
import { audit } from '../../../../lib/audit';
import { csvStream } from '../../../../lib/csv';
import { searchConditions } from '../../../../lib/examinees/conditions';
import { loadPass, setPass } from '../../../../lib/examinees/pass';
import { installFieldErrorHandler } from '../../../../lib/management-errors';
import { stampInZone } from '../../../../lib/management-time';
import {
  countTesters,
  hasSearchConditions,
  parseTesterSearch,
  searchTesters,
  testerValueBatches,
} from '../../../../lib/search-testers';

/**
 * CSV columns of downloadExamUserList (spec §2 result table, plus ids, stop time, cheating level, pass): the
 * header and the search-row field of each.
 */
const CSV_COLUMNS = [
  ['受験ID', 'test_id'],
  ['試験団体', 'group'],
  ['試験名', 'test_name'],
  ['会場', 'region'],
  ['試験日時', 'test_at'],
  ['終了日時', 'stop_at'],
  ['受験者名', 'exam_name'],
  ['ログインID', 'login_id'],
  ['受験者ID', 'user_id'],
  ['マーキング', 'with_mark'],
  ['不正レベル', 'cheating_level'],
  ['スコア', 'total_score'],
  ['保存データ', 'record'],
  ['合否', 'pass'],
] as const satisfies readonly (readonly [string, keyof TesterRow])[];
const CSV_HEADER = CSV_COLUMNS.map(([h]) => h);
const CSV_FIELDS = CSV_COLUMNS.map(([, k]) => k);
/** Rows per database batch of the export: memory stays at about one batch (csvStream pulls on demand). */
const CSV_BATCH_ROWS = 2000;

/** testers.php, testers/conditions.php, downloadExamUserList.php and test/pass.php (spec §7). */
export default async function examineesRoutes(app: App): Promise<void> {
  installFieldErrorHandler(app);

  app.get(
    '/testers.php',
    {
      config: { access: MANAGER_ACTORS },
      schema: { querystring: TesterSearchQuery, response: { 200: Envelope(TesterSearchResult) } },
    },
    async (request, reply) => {
      const filter = parseTesterSearch(request.query, request.auth!);
      return reply.ok(await searchTesters(app.db, filter));
    },
  );

  app.get(
    '/testers/conditions.php',
    {
      config: { access: MANAGER_ACTORS },
      schema: { response: { 200: Envelope(TesterConditionsResult) } },
    },
    async (request, reply) => reply.ok(await searchConditions(app.db, request.auth!)),
  );

  app.get(
    '/downloadExamUserList.php',
    {
      config: { access: MANAGER_ACTORS },
      schema: { querystring: TesterSearchQuery },
    },
    async (request, reply) => {
      const auth = request.auth!;
      if (!hasSearchConditions(request.query)) {
        // spec §8: "an error saying there are no search parameters for the download".
        throw new ApiError(
          400,
          'no_search_conditions',
          'ダウンロードする検索条件が指定されていません。検索条件を1つ以上指定してください。',
        );
      }
      const filter = parseTesterSearch(request.query, auth);
      const { count } = await countTesters(app.db, filter, null);
      await audit(app.db, {
        type: 'export.testers_csv',
        actor: auth.actor,
        userId: auth.userId,
        loginId: auth.loginId,
        ip: request.ip,
        target: 'downloadExamUserList',
        // perf-reliability §5: ids only, no personal data, so the filter names are logged, not their values.
        details: JSON.stringify({
          rows: count,
          conditions: Object.entries(request.query)
            .filter(([, v]) => v !== '' && v !== undefined)
            .map(([k]) => k),
        }),
      });
      const fileName = `exam_user_resultinfo_csv_${stampInZone(new Date())}.csv`;
      const stream = csvStream(
        CSV_HEADER,
        testerValueBatches(app.db, filter, CSV_FIELDS, CSV_BATCH_ROWS),
        (r) => r,
      );
      return reply
        .header('Content-Type', 'text/csv; charset=utf-8')
        .header('Content-Disposition', `attachment; filename="${fileName}"`)
        .header('X-Total-Rows', String(count))
        .header('Access-Control-Expose-Headers', 'Content-Disposition, X-Total-Rows')
        .header('Cache-Control', 'no-store')
        .send(stream);
    },
  );

  app.get(
    '/test/pass.php',
    {
      config: { access: MANAGER_ACTORS },
      schema: { querystring: TestPassQuery, response: { 200: Envelope(TestPassResult) } },
    },
    async (request, reply) => {
      const testId = Number(request.query.test_id);
      const { pass } = await loadPass(app.db, request.auth!, testId);
      return reply.ok({ test_id: testId, pass } satisfies TestPassResult);
    },
  );

  app.post(
    '/test/pass.php',
    {
      config: { access: MANAGER_ACTORS },
      schema: { body: TestPassBody, response: { 200: Envelope(TestPassResult) } },
    },
    async (request, reply) => {
      const auth = request.auth!;
      const testId = Number(request.body.test_id);
      await loadPass(app.db, auth, testId);
      // spec §4 "Test pass": status 1 after PUT, 0 after DELETE.
      const pass = request.body.method === 'PUT' ? 1 : 0;
      await setPass(app.db, testId, pass);
      await audit(app.db, {
        type: 'test.pass',
        actor: auth.actor,
        userId: auth.userId,
        loginId: auth.loginId,
        ip: request.ip,
        target: `test:${testId}`,
        details: JSON.stringify({ pass }),
      });
      return reply.ok({ test_id: testId, pass } satisfies TestPassResult);
    },
  );
}
