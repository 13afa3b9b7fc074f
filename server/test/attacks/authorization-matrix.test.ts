import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_ACTORS as ACTORS, type Actor } from '../../../contract/common';
import type { AccessRole, RouteAccess } from '../../src/lib/app-types';
import { build, DEMO_LOGIN, loginAs, pairPhone, type TestServer } from '../helper';

/**
 * The authorization matrix, generated from the server's own route access table (`app.apiRoutes`): every
 * /api route × every actor (and no token) × someone else's data answers 401/403/404, never 200. Every route
 * needs a row below: a route added without one fails the first test, so it cannot ship unexamined.
 *
 * "Someone else" is a second tenant made here: group OTHER with examinee tester21, in an open sitting (not
 * proctored, so no checker is ever assigned it) with a completed recording. For a checker, the data of an
 * examinee not matched to it, and checker02's own settings; for the test manager of group DEMO, group OTHER.
 * System managers and supervisors see every group: they are the routes' `owners`, not checked here.
 *
 * Besides the five actors, a paired phone (the examinee's phone as a second camera, paired with tester01's
 * sitting): its session may call only the routes whose access names 'phone' and is refused (403) everywhere else.
 */

interface Victim {
  testerId: number;
  testId: number;
  recordId: number;
  groupId: number;
  checkerId: number;
}

type Row =
  /** No one's data is named (own session, lists, settings of the caller's role): only the role is checked. */
  | { kind: 'role'; req: InjectOptions }
  /** Open to everyone and naming nothing of anyone's. */
  | { kind: 'public' }
  /** Names the victim's data. `answers`: actors answered 200 without any of it (e.g. a filter that matches none). */
  | {
      kind: 'foreign';
      req: (v: Victim) => InjectOptions;
      owners?: Actor[];
      answers?: Actor[];
      /** The refusal statuses of this route when not 403/404 (e.g. 410 for a one-time token). */
      refusals?: number[];
    };

const get = (url: string): InjectOptions => ({ method: 'GET', url });
const post = (url: string, payload: object = {}): InjectOptions => ({ method: 'POST', url, payload });
const ADMINS: Actor[] = [4, 5];

const ROWS: Record<string, Row> = {
  'GET /api/v1/access_limit/select_access_limit.php': {
    kind: 'role',
    req: get('/api/v1/access_limit/select_access_limit.php'),
  },
  'POST /api/v1/access_limit/insert_access_limit.php': {
    kind: 'role',
    req: post('/api/v1/access_limit/insert_access_limit.php', {
      server: '',
      ip: '10.1.1.1',
      domain: '',
      actor: 3,
    }),
  },
  'POST /api/v1/access_limit/delete_access_limit.php': {
    kind: 'role',
    req: post('/api/v1/access_limit/delete_access_limit.php', { ids: [1] }),
  },
  'POST /api/v1/ai_auth/face.php': {
    kind: 'role',
    req: post('/api/v1/ai_auth/face.php', { image: 'x', content_type: 'image/png' }),
  },
  'POST /api/v1/ai_auth/id_card.php': {
    kind: 'role',
    req: post('/api/v1/ai_auth/id_card.php', { image: 'x', content_type: 'image/png' }),
  },
  'POST /api/v1/ai_auth/status.php': {
    kind: 'foreign',
    req: (v) => post('/api/v1/ai_auth/status.php', { tester_id: v.testerId }),
    owners: ADMINS,
  },
  'POST /api/v1/analysis_request/request.php': {
    kind: 'role',
    req: post('/api/v1/analysis_request/request.php', {
      analysis_inseq: 'x',
      analysis_status: 1,
      testers: [1],
    }),
  },
  'GET /api/v1/analysis_request/index.php': { kind: 'role', req: get('/api/v1/analysis_request/index.php') },
  'POST /api/v1/login.php': { kind: 'public' },
  'POST /api/v1/logout.php': { kind: 'role', req: post('/api/v1/logout.php?p=self') },
  'GET /api/v1/cleaner/setting_index.php': { kind: 'role', req: get('/api/v1/cleaner/setting_index.php') },
  'POST /api/v1/cleaner/setting_store.php': {
    kind: 'role',
    req: post('/api/v1/cleaner/setting_store.php', { group_id: 1, duration: 30 }),
  },
  'POST /api/v1/cleaner/setting_update.php': {
    kind: 'role',
    req: post('/api/v1/cleaner/setting_update.php', { id: 1, duration: 30 }),
  },
  'GET /api/v1/cleaner/csv.php': {
    kind: 'role',
    req: get('/api/v1/cleaner/csv.php?key=tester&execution_time=2030-01-01'),
  },
  'GET /api/v1/testers.php': {
    kind: 'foreign',
    req: (v) => get(`/api/v1/testers.php?group=${v.groupId}`),
    owners: ADMINS,
    answers: [3],
  },
  'GET /api/v1/testers/conditions.php': { kind: 'role', req: get('/api/v1/testers/conditions.php') },
  'GET /api/v1/downloadExamUserList.php': {
    kind: 'foreign',
    req: (v) => get(`/api/v1/downloadExamUserList.php?group=${v.groupId}`),
    owners: ADMINS,
    answers: [3],
  },
  'GET /api/v1/test/pass.php': {
    kind: 'foreign',
    req: (v) => get(`/api/v1/test/pass.php?test_id=${v.testId}`),
    owners: ADMINS,
  },
  'POST /api/v1/test/pass.php': {
    kind: 'foreign',
    req: (v) => post('/api/v1/test/pass.php', { test_id: v.testId, method: 'PUT' }),
    owners: ADMINS,
  },
  'GET /api/v1/logs/search.php': { kind: 'role', req: get('/api/v1/logs/search.php') },
  'GET /api/v1/logins.php': { kind: 'role', req: get('/api/v1/logins.php') },
  'POST /api/v1/logins/force_logout.php': {
    kind: 'role',
    req: post('/api/v1/logins/force_logout.php', { user_id: 1 }),
  },
  'POST /api/v1/log_receive.php': { kind: 'public' },
  'POST /api/v1/device_logging.php': { kind: 'public' },
  'GET /api/v1/management_initial_param.php': {
    kind: 'role',
    req: get('/api/v1/management_initial_param.php'),
  },
  'GET /api/v1/management_summary.php': { kind: 'role', req: get('/api/v1/management_summary.php') },
  'GET /api/v1/analysis_request/initial_param.php': {
    kind: 'role',
    req: get('/api/v1/analysis_request/initial_param.php'),
  },
  // A checker's report about an examinee that is not its own is ignored; the answer holds only its own.
  'POST /api/v1/matching.php': {
    kind: 'foreign',
    req: (v) => post('/api/v1/matching.php', { tester_id: v.testerId, channel_status: 'failed' }),
    answers: [2],
  },
  'POST /api/v1/delete_matching.php': {
    kind: 'foreign',
    req: (v) => post('/api/v1/delete_matching.php', { tester_id: v.testerId }),
  },
  'GET /api/v1/kvs_reconnect.php': {
    kind: 'foreign',
    req: (v) => get(`/api/v1/kvs_reconnect.php?tester_id=${v.testerId}`),
  },
  'POST /api/v1/tester/monitor_activate.php': {
    kind: 'foreign',
    req: (v) => post('/api/v1/tester/monitor_activate.php', { monitor_id: v.checkerId, activation: 0 }),
    owners: ADMINS,
  },
  'GET /api/v1/tester/monitor_activate_list.php': {
    kind: 'role',
    req: get('/api/v1/tester/monitor_activate_list.php'),
  },
  'GET /api/v1/checkers/monitoring.php': { kind: 'role', req: get('/api/v1/checkers/monitoring.php') },
  'GET /api/v1/checkers/matching_histories.php': {
    kind: 'foreign',
    req: (v) => get(`/api/v1/checkers/matching_histories.php?checker_id=${v.checkerId}`),
    owners: ADMINS,
  },
  'POST /api/v1/webrtc_message.php': {
    kind: 'foreign',
    req: (v) =>
      post('/api/v1/webrtc_message.php', {
        tester_id: v.testerId,
        send_type: 1,
        message_type: 1,
        message: 'hi',
      }),
  },
  'GET /api/v1/webrtc_message.php': {
    kind: 'foreign',
    req: (v) => get(`/api/v1/webrtc_message.php?tester_id=${v.testerId}`),
    owners: ADMINS,
  },
  'GET /api/v1/fixed_notifications.php': { kind: 'role', req: get('/api/v1/fixed_notifications.php') },
  'GET /api/v1/marks.php': { kind: 'role', req: get('/api/v1/marks.php') },
  'POST /api/v1/tester/recording.php': {
    kind: 'foreign',
    req: (v) => post('/api/v1/tester/recording.php', { method: 'DELETE', record_id: v.recordId }),
  },
  'GET /api/v1/tester/recording.php': {
    kind: 'foreign',
    req: (v) => get(`/api/v1/tester/recording.php?record_id=${v.recordId}`),
  },
  'POST /api/v1/recovery.php': {
    kind: 'foreign',
    req: (v) => post('/api/v1/recovery.php', { record_id: v.recordId }),
  },
  'GET /api/v1/get_onetime_uri.php': {
    kind: 'foreign',
    req: (v) => get(`/api/v1/get_onetime_uri.php?record_id=${v.recordId}`),
    owners: ADMINS,
  },
  'GET /api/v1/shorten_url/select.php': { kind: 'role', req: get('/api/v1/shorten_url/select.php') },
  'POST /api/v1/shorten_url/insert.php': {
    kind: 'role',
    req: post('/api/v1/shorten_url/insert.php', { url_key: 'matrix', actor: 1, param: {} }),
  },
  'POST /api/v1/shorten_url/update.php': {
    kind: 'role',
    req: post('/api/v1/shorten_url/update.php', { id: 1, url_key: 'matrix', actor: 1, param: {} }),
  },
  'POST /api/v1/shorten_url/delete.php': {
    kind: 'role',
    req: post('/api/v1/shorten_url/delete.php', { id: 1 }),
  },
  'GET /api/v1/servertime.php': { kind: 'public' },
  'GET /api/v1/get_servertime.php': { kind: 'public' },
  'GET /api/v1/admin_permission.php': { kind: 'role', req: get('/api/v1/admin_permission.php') },
  'GET /api/v1/templates/list.php': { kind: 'role', req: get('/api/v1/templates/list.php') },
  'POST /api/v1/templates/save.php': {
    kind: 'role',
    req: post('/api/v1/templates/save.php', {
      kind: 'terms_of_service',
      template_id: 1,
      lang: 'ja',
      title: 't',
      body: 'b',
    }),
  },
  'POST /api/v1/get_examining_term.php': { kind: 'public' },
  'GET /api/v1/get_examining_term_list.php': { kind: 'public' },
  'GET /api/v1/get_env_setting_term.php': { kind: 'public' },
  'GET /api/v1/get_env_setting_term_list.php': { kind: 'public' },
  'GET /api/v1/get_terms_of_service.php': { kind: 'public' },
  'GET /api/v1/get_terms_of_service_list.php': { kind: 'public' },
  'GET /api/v1/get_privacy_policy.php': { kind: 'public' },
  'GET /api/v1/get_privacy_policy_list.php': { kind: 'public' },
  'GET /api/v1/get_inquiry.php': { kind: 'public' },
  'GET /api/v1/get_inquiry_list.php': { kind: 'public' },
  'POST /api/v1/test/status.php': { kind: 'role', req: post('/api/v1/test/status.php', { process: 0 }) },
  'POST /api/v1/exam/status.php': { kind: 'role', req: post('/api/v1/exam/status.php', { process: 0 }) },
  'GET /api/v1/test/markings.php': {
    kind: 'foreign',
    req: (v) => get(`/api/v1/test/markings.php?test_id=${v.testId}`),
    owners: ADMINS,
  },
  'GET /api/v1/tester/detail.php': {
    kind: 'foreign',
    req: (v) => get(`/api/v1/tester/detail.php?tester_id=${v.testerId}`),
    owners: ADMINS,
  },
  'POST /api/v1/tester/status.php': {
    kind: 'foreign',
    req: (v) => post('/api/v1/tester/status.php', { tester_id: v.testerId, status: 2 }),
    owners: ADMINS,
  },
  'POST /api/v1/get_mc_token.php': { kind: 'role', req: post('/api/v1/get_mc_token.php', { mode: 1 }) },
  // Open to the exam system; the one-time token is the credential: a made-up one opens nobody's sitting.
  'POST /api/v1/redeem_mc_token.php': {
    kind: 'foreign',
    req: () => post('/api/v1/redeem_mc_token.php', { token: 'f'.repeat(43) }),
    refusals: [410],
  },
  'POST /api/v1/tester/kick_out.php': {
    kind: 'foreign',
    req: (v) => post('/api/v1/tester/kick_out.php', { tester_id: v.testerId, method: 'PUT' }),
    owners: ADMINS,
  },
  'POST /api/v1/tester/rejected.php': {
    kind: 'foreign',
    req: (v) => post('/api/v1/tester/rejected.php', { tester_id: v.testerId, method: 'PUT' }),
    owners: ADMINS,
  },
  // The wider view: the examinee's own sitting only; a room scan only from the checker matched to the examinee.
  'GET /api/v1/tester/wider_view.php': { kind: 'role', req: get('/api/v1/tester/wider_view.php') },
  'POST /api/v1/tester/screen_share.php': {
    kind: 'role',
    req: post('/api/v1/tester/screen_share.php', { state: 'ended' }),
  },
  'POST /api/v1/tester/room_scan.php': {
    kind: 'role',
    req: post('/api/v1/tester/room_scan.php', { action: 'start' }),
  },
  'POST /api/v1/tester/room_scan_request.php': {
    kind: 'foreign',
    req: (v) => post('/api/v1/tester/room_scan_request.php', { tester_id: v.testerId }),
  },
  'POST /api/v1/tester/markings.php': {
    kind: 'foreign',
    req: (v) => post('/api/v1/tester/markings.php', { tester_id: v.testerId, mark: 1 }),
  },
  'POST /api/v1/tester/head_shot.php': {
    kind: 'role',
    req: post('/api/v1/tester/head_shot.php', { image: 'x', content_type: 'image/png' }),
  },
  'GET /api/v1/tester/head_shot.php': {
    kind: 'foreign',
    req: (v) => get(`/api/v1/tester/head_shot.php?tester_id=${v.testerId}`),
    owners: ADMINS,
  },
  // A still of the caller's own open sitting; no one else's sitting can be named.
  'POST /api/v1/tester/capture.php': {
    kind: 'role',
    req: post('/api/v1/tester/capture.php', {
      image: 'x',
      content_type: 'image/jpeg',
      client_key: 'matrix-still-1',
      age_ms: 0,
    }),
  },
  // The feed names no one: it holds the calling checker's own examinees, never the other tenant's.
  'GET /api/v1/checker/live_feed.php': {
    kind: 'foreign',
    req: () => get('/api/v1/checker/live_feed.php'),
    answers: [2],
  },
  'GET /api/servertime': { kind: 'public' },
  // The phone camera: a code for the caller's own sitting; spending a made-up code opens nobody's sitting; the
  // phone's own calls name nothing (its session is bound to one sitting).
  'POST /api/v1/tester/phone_pairing.php': { kind: 'role', req: post('/api/v1/tester/phone_pairing.php') },
  'POST /api/v1/phone/pair.php': {
    kind: 'foreign',
    req: () => post('/api/v1/phone/pair.php', { code: 'f'.repeat(43) }),
    refusals: [410],
  },
  'POST /api/v1/phone/poll.php': { kind: 'role', req: post('/api/v1/phone/poll.php', {}) },
  'POST /api/v1/phone/leave.php': { kind: 'role', req: post('/api/v1/phone/leave.php', {}) },
  // Accounts: system managers only, over every account (no one's data is theirs to hide).
  'GET /api/v1/accounts/list.php': { kind: 'role', req: get('/api/v1/accounts/list.php') },
  'GET /api/v1/accounts/groups.php': { kind: 'role', req: get('/api/v1/accounts/groups.php') },
  'POST /api/v1/accounts/create_group.php': {
    kind: 'role',
    req: post('/api/v1/accounts/create_group.php', { code: 'MATRIX', name: 'Matrix' }),
  },
  'POST /api/v1/accounts/import.php': {
    kind: 'role',
    req: post('/api/v1/accounts/import.php', {
      csv: 'login_id,name,actor,group_code,password',
      dry_run: true,
    }),
  },
  'POST /api/v1/accounts/set_disabled.php': {
    kind: 'role',
    req: post('/api/v1/accounts/set_disabled.php', { login_id: 'tester21', disabled: true }),
  },
  'POST /api/v1/accounts/reset_password.php': {
    kind: 'role',
    req: post('/api/v1/accounts/reset_password.php', { login_id: 'tester21' }),
  },
};

let s: TestServer;
let victim: Victim;
const tokens = new Map<AccessRole, string>();

function allows(access: RouteAccess, role: AccessRole): boolean {
  return access === 'public' || access.includes(role);
}

beforeAll(async () => {
  s = await build();
  const g = await s.db.query<{ id: number }>(
    `INSERT INTO exam_groups (code, name) VALUES ('OTHER', 'Other University') RETURNING id`,
  );
  const groupId = Number(g.rows[0]!.id);
  const u = await s.db.query<{ id: number }>(
    `INSERT INTO users (login_id, password_hash, actor, name, group_id)
     SELECT 'tester21', password_hash, 1, 'Other Examinee', $1 FROM users WHERE login_id = 'tester01' RETURNING id`,
    [groupId],
  );
  const testerId = Number(u.rows[0]!.id);
  const t21 = await loginAs(s.app, 'tester21');
  const t = await s.db.query<{ id: number }>(
    `UPDATE tests SET startup_parameters = '{"is_proctor": 0, "is_record": 1}'::jsonb, group_id = $2
      WHERE user_id = $1 RETURNING id`,
    [testerId, groupId],
  );
  const testId = Number(t.rows[0]!.id);
  // A live matching that no checker can be given (not proctored).
  const m = await s.app.inject({
    method: 'POST',
    url: '/api/v1/matching.php',
    headers: { authorization: `Bearer ${t21}` },
    payload: {},
  });
  expect(m.statusCode, m.body).toBe(200);
  const r = await s.db.query<{ id: number }>(
    `INSERT INTO records (test_id, tester_id, bucket, object_key, stop_at, size_bytes, movie_status, object_etag)
     VALUES ($1, $2, 'recordings', $3, now(), 10, '02', '"x"') RETURNING id`,
    [testId, testerId, `recordings/${testId}/matrix-1.webm`],
  );
  const c = await s.db.query<{ id: number }>(`SELECT id FROM users WHERE login_id = 'checker02'`);
  victim = { testerId, testId, recordId: Number(r.rows[0]!.id), groupId, checkerId: Number(c.rows[0]!.id) };
  for (const a of ACTORS) tokens.set(a, await loginAs(s.app, DEMO_LOGIN[a]));
  tokens.set('phone', await pairPhone(s.app, tokens.get(1)!));
});

afterAll(async () => {
  await s.close();
});

describe('the authorization matrix (route access table × actors × someone else’s data)', () => {
  it('has a row for every /api route, and no row for a route that does not exist', () => {
    const keys = s.app.apiRoutes.map((r) => `${r.method} ${r.url}`);
    expect(
      keys.filter((k) => !(k in ROWS)),
      'routes without a row in the matrix',
    ).toEqual([]);
    expect(
      Object.keys(ROWS).filter((k) => !keys.includes(k)),
      'rows without a route',
    ).toEqual([]);
  });

  it('answers 401/403/404 and never 200 to every actor without a right to the data, and 401 without a token', async () => {
    const failures: string[] = [];
    for (const route of s.app.apiRoutes) {
      const key = `${route.method} ${route.url}`;
      const row = ROWS[key];
      if (!row || row.kind === 'public') continue;
      const access = route.access as RouteAccess;
      const callers: (AccessRole | null)[] = [null, ...ACTORS, 'phone'];
      for (const actor of callers) {
        let req: InjectOptions;
        let expected: number[];
        let mayAnswer = false;
        if (actor === null) {
          if (access === 'public' && row.kind === 'role') continue;
          req = row.kind === 'role' ? row.req : row.req(victim);
          expected =
            access === 'public' ? (row.kind === 'foreign' ? (row.refusals ?? [403, 404]) : []) : [401];
        } else if (!allows(access, actor)) {
          req = row.kind === 'role' ? row.req : row.req(victim);
          expected = [403];
        } else if (row.kind === 'foreign' && !(row.owners ?? []).includes(actor as Actor)) {
          req = row.req(victim);
          expected = row.refusals ?? [403, 404];
          mayAnswer = (row.answers ?? []).includes(actor as Actor);
        } else continue;
        const headers = { ...(req.headers ?? {}) } as Record<string, string>;
        if (actor !== null) headers.authorization = `Bearer ${tokens.get(actor)}`;
        const res = await s.app.inject({ ...req, headers });
        const who = actor === null ? 'no token' : actor === 'phone' ? 'a paired phone' : DEMO_LOGIN[actor];
        if (mayAnswer && res.statusCode === 200) {
          // Answered, but nothing of the victim's may be in it.
          if (res.body.includes('tester21') || res.body.includes(`"tester_id":${victim.testerId}`))
            failures.push(`${key} as ${who}: 200 with the other examinee's data`);
          continue;
        }
        if (!expected.includes(res.statusCode))
          failures.push(
            `${key} as ${who}: ${res.statusCode} (expected ${expected.join('/')}) ${res.body.slice(0, 120)}`,
          );
      }
    }
    expect(failures).toEqual([]);
  });
});
