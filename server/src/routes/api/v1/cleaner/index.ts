import { ADMIN_ACTORS, Envelope } from '../../../../../../contract/common';
import {
  CleanerCsvQuery,
  CleanerSettingListResult,
  CleanerSettingRow,
  CleanerStoreBody,
  CleanerUpdateBody,
  RETENTION_DAYS_MAX,
  RETENTION_DAYS_MIN,
} from '../../../../../../contract/management';
import { ApiError } from '../../../../lib/api-error';
import type { App, AuthContext } from '../../../../lib/app-types';
import { audit } from '../../../../lib/audit';
import { csvStream } from '../../../../lib/csv';
import { FieldError, MSG, toId, installFieldErrorHandler } from '../../../../lib/management-errors';
import {
  groupExists,
  insertCleanerSetting,
  listCleanerSettings,
  updateCleanerSetting,
} from '../../../../lib/management/cleaner-settings';
import { parseDate } from '../../../../lib/management-time';
import {
  plannedRecordBatches,
  plannedTestBatches,
  type PlannedRecordRow,
  type PlannedTestRow,
} from '../../../../lib/retention-job';

const DURATION_MESSAGE = `保存期間は${RETENTION_DAYS_MIN}〜${RETENTION_DAYS_MAX}日の範囲の整数で入力してください。`;

function duration(v: number | string): number {
  const n = typeof v === 'number' ? v : Number(v);
  if (!Number.isInteger(n) || n < RETENTION_DAYS_MIN || n > RETENTION_DAYS_MAX)
    throw new FieldError('duration', DURATION_MESSAGE);
  return n;
}

const TESTER_HEADER = [
  '受験ID',
  '受験者ID',
  'ログインID',
  '試験団体',
  '試験名',
  '受験者名',
  '試験日時',
  '終了日時',
  '保存期間(日)',
  '録画数',
];
const RECORD_HEADER = [
  '録画ID',
  '受験ID',
  'ログインID',
  '録画開始',
  '録画終了',
  'オブジェクトキー',
  'サイズ(バイト)',
];

/** cleaner/setting_index, setting_store, setting_update and csv (spec §2 delete setting and plan, §7). */
export default async function cleanerRoutes(app: App): Promise<void> {
  installFieldErrorHandler(app);

  const auditSetting = (auth: AuthContext, ip: string, type: string, row: CleanerSettingRow) =>
    audit(app.db, {
      type,
      actor: auth.actor,
      userId: auth.userId,
      loginId: auth.loginId,
      ip,
      target: `cleaner_setting:${row.id}`,
      details: JSON.stringify({ group_id: row.group_id, duration: row.duration }),
    });

  app.get(
    '/cleaner/setting_index.php',
    { config: { access: ADMIN_ACTORS }, schema: { response: { 200: Envelope(CleanerSettingListResult) } } },
    async (_request, reply) =>
      reply.ok({ list: await listCleanerSettings(app.db) } satisfies CleanerSettingListResult),
  );

  app.post(
    '/cleaner/setting_store.php',
    {
      config: { access: ADMIN_ACTORS },
      schema: { body: CleanerStoreBody, response: { 200: Envelope(CleanerSettingRow) } },
    },
    async (request, reply) => {
      const groupId = toId(request.body.group_id, 'group_id');
      const days = duration(request.body.duration);
      if (!(await groupExists(app.db, groupId))) throw new FieldError('group_id', 'No such exam group.');
      const row = await insertCleanerSetting(app.db, groupId, days);
      if (!row) throw new ApiError(409, 'retention_exists', 'この試験団体の保存期間は既に登録されています。');
      await auditSetting(request.auth!, request.ip, 'settings.retention.store', row);
      return reply.ok(row);
    },
  );

  app.post(
    '/cleaner/setting_update.php',
    {
      config: { access: ADMIN_ACTORS },
      schema: { body: CleanerUpdateBody, response: { 200: Envelope(CleanerSettingRow) } },
    },
    async (request, reply) => {
      const id = toId(request.body.id, 'id');
      const days = duration(request.body.duration);
      const row = await updateCleanerSetting(app.db, id, days);
      if (!row) throw new ApiError(404, 'not_found', 'No such retention setting.');
      await auditSetting(request.auth!, request.ip, 'settings.retention.update', row);
      return reply.ok(row);
    },
  );

  app.get(
    '/cleaner/csv.php',
    { config: { access: ADMIN_ACTORS }, schema: { querystring: CleanerCsvQuery } },
    async (request, reply) => {
      const auth = request.auth!;
      const { key, execution_time } = request.query;
      // spec §5 "Delete-plan download: the date must be a date and is sent as the date plus 00:00:00".
      const date = parseDate(execution_time);
      if (date === null) throw new FieldError('execution_time', MSG.date('実行日'));
      await audit(app.db, {
        type: 'export.delete_plan_csv',
        actor: auth.actor,
        userId: auth.userId,
        loginId: auth.loginId,
        ip: request.ip,
        target: `delete_plan:${key}`,
        details: JSON.stringify({ date }),
      });
      const stream =
        key === 'tester'
          ? csvStream(TESTER_HEADER, plannedTestBatches(app.db, date), (r: PlannedTestRow) => [
              r.test_id,
              r.user_id,
              r.login_id,
              r.group,
              r.test_name,
              r.exam_name,
              r.test_at,
              r.stop_at,
              r.duration,
              r.record_count,
            ])
          : csvStream(RECORD_HEADER, plannedRecordBatches(app.db, date), (r: PlannedRecordRow) => [
              r.record_id,
              r.test_id,
              r.login_id,
              r.start_at,
              r.stop_at,
              r.object_key,
              r.size_bytes,
            ]);
      const fileName = `delete_plan_csv_${key}_${date.replace(/-/g, '')}.csv`;
      return reply
        .header('Content-Type', 'text/csv; charset=utf-8')
        .header('Content-Disposition', `attachment; filename="${fileName}"`)
        .header('Access-Control-Expose-Headers', 'Content-Disposition')
        .header('Cache-Control', 'no-store')
        .send(stream);
    },
  );
}
