import type { Db } from './db';
import { hashPassword } from '../lib/passwords';
import { seedTemplates } from './seed-templates';

export const DEMO_PASSWORD = 'demo-pass';
export const DEMO_GROUP = { code: 'DEMO', name: 'Demo University' };
export const DEMO_EXAM = 'Demo Exam';

/** Start-up parameters carried by the demo short URLs (snake_case, as in a start-up query). */
const TESTER_PARAMS = {
  actor: 1,
  lang: 'ja',
  is_mobile: 0,
  is_mc_startup: 1,
  is_proctor: 1,
  is_auth: 1,
  is_record: 1,
  is_voice_recording: 1,
  is_summary: 1,
  exam_url: '/demo-exam/',
  region: 'Online',
  exam_name: DEMO_EXAM,
  max_rectime: 10800,
  matching_timeout: 5,
  tester_retry: 3,
  checker_retry: 3,
  webrtc_timeout: 10,
  intervaltime: 5,
  webrtc_max_time: 3600,
  is_ai_auth: 0,
  is_ai_faild_manual: 1,
  group: DEMO_GROUP.code,
};

export const DEMO_SHORT_URLS: { key: string; actor: number; param: Record<string, unknown> }[] = [
  { key: 'demo-tester', actor: 1, param: TESTER_PARAMS },
  {
    key: 'demo-tester-ai',
    actor: 1,
    param: {
      ...TESTER_PARAMS,
      is_ai_auth: 1,
      is_ai_faild_manual: 1,
      is_ai_idcard_request: 1,
      ai_face_retry: 3,
      ai_idcard_retry: 3,
      ai_all_retry: 5,
      ai_idcard_type: '1,2,3',
      ai_namematch: 80,
    },
  },
  { key: 'demo-checker', actor: 2, param: { actor: 2, lang: 'ja', matching_timeout: 5, checker_retry: 3 } },
  { key: 'demo-manager', actor: 3, param: { actor: 3, lang: 'ja' } },
  { key: 'demo-admin', actor: 4, param: { actor: 4, lang: 'ja' } },
];

const MARKS: { message: string; label: string; score: number; reason: number }[] = [
  { message: 'カメラの不具合', label: 'CAMERA_FAILURE', score: 1, reason: 1 },
  { message: '視認性不良', label: 'POOR_VISIBILITY', score: 1, reason: 2 },
  { message: '視線不良', label: 'POOR_VISION', score: 2, reason: 3 },
  { message: '顔の向き不良', label: 'POOR_WORKMANSHIP', score: 2, reason: 4 },
  { message: '明るさ不良', label: 'POOR_LIGHTNESS', score: 1, reason: 5 },
  { message: '顔認識不可', label: 'NO_FACIAL_RECOGNITION', score: 3, reason: 6 },
  { message: '本人不一致', label: 'PERSONALITY_MISMATCH', score: 10, reason: 7 },
  { message: '複数人の確認', label: 'MULTIPLE_PEOPLE_IDENTIFICATION', score: 10, reason: 8 },
  { message: '本人未確認', label: 'UNIDENTIFIED_PERSON', score: 5, reason: 9 },
  { message: 'マイクの不具合', label: 'MICROPHONE_FAILURE', score: 1, reason: 10 },
  { message: 'マイク音量不良', label: 'MICROPHONE_VOLUME_FAILURE', score: 1, reason: 11 },
  { message: '音声確認', label: 'VOICE_VERIFICATION', score: 3, reason: 12 },
  { message: '音声確認不可', label: 'UNABLE_TO_VERIFY_AUDIO', score: 2, reason: 13 },
  { message: '携帯電話の認識不可', label: 'CELL_PHONE_UNRECOGNIZABLE', score: 5, reason: 14 },
  { message: '規定違反', label: 'REGULATION_INJUSTICE', score: 10, reason: 15 },
];

const FIXED_NOTIFICATIONS = [
  '顔がカメラに映るように座り直してください。',
  '部屋を360度映してください。',
  '机の上を映してください。',
  '本人確認書類をカメラに向けてください。',
  'マイクの音量を確認してください。',
  '試験中は席を離れないでください。',
];

export async function hasDemoData(db: Db): Promise<boolean> {
  const { rows } = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM users WHERE login_id = 'tester01'`,
  );
  return (rows[0]?.n ?? 0) > 0;
}

/** Creates the demo data of ARCHITECTURE.md ("Demo data"); with reset, removes the previous demo rows first. */
export async function seedDemo(db: Db, opts: { reset?: boolean } = {}): Promise<void> {
  const hash = await hashPassword(DEMO_PASSWORD);
  await db.transaction(async (tx) => {
    if (opts.reset) {
      await tx.query(
        `DELETE FROM users WHERE login_id ~ '^(tester(0[1-9]|1[0-2])|checker0[1-3]|manager01|sysadmin01|supervisor01)$'`,
      );
      await tx.query(`DELETE FROM short_urls WHERE url_key LIKE 'demo-%'`);
      await tx.query(`DELETE FROM marks`);
      await tx.query(`DELETE FROM fixed_notifications`);
      await tx.query(`DELETE FROM login_failures`);
    }
    const g = await tx.query<{ id: number }>(
      `INSERT INTO exam_groups (code, name) VALUES ($1, $2)
       ON CONFLICT (code) DO UPDATE SET name = EXCLUDED.name RETURNING id`,
      [DEMO_GROUP.code, DEMO_GROUP.name],
    );
    const groupId = g.rows[0]!.id;
    const users: [string, number, string, number | null][] = [];
    for (let i = 1; i <= 12; i++) {
      const n = String(i).padStart(2, '0');
      users.push([`tester${n}`, 1, `デモ受験者${n}`, groupId]);
    }
    for (let i = 1; i <= 3; i++) users.push([`checker0${i}`, 2, `デモ監視者0${i}`, null]);
    users.push(['manager01', 3, 'デモ試験管理者', groupId]);
    users.push(['sysadmin01', 4, 'デモシステム管理者', null]);
    users.push(['supervisor01', 5, 'デモスーパーバイザー', null]);
    for (const [loginId, actor, name, gid] of users) {
      await tx.query(
        `INSERT INTO users (login_id, ex_login_id, password_hash, actor, name, group_id, target)
         VALUES ($1, $1, $2, $3, $4, $5, '')`,
        [loginId, hash, actor, name, gid],
      );
    }
    for (const [i, m] of MARKS.entries()) {
      await tx.query(
        `INSERT INTO marks (message, label, order_id, display, score, reason_code) VALUES ($1,$2,$3,1,$4,$5)`,
        [m.message, m.label, i + 1, m.score, m.reason],
      );
    }
    for (const [i, message] of FIXED_NOTIFICATIONS.entries()) {
      await tx.query(`INSERT INTO fixed_notifications (message, order_id) VALUES ($1, $2)`, [message, i + 1]);
    }
    for (const s of DEMO_SHORT_URLS) {
      await tx.query(`INSERT INTO short_urls (actor, target, url_key, param) VALUES ($1, '', $2, $3)`, [
        s.actor,
        s.key,
        JSON.stringify(s.param),
      ]);
    }
    await seedTemplates(tx, { reset: opts.reset ?? false });
  });
}
