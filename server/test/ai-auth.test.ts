import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { AiAuthAttemptResult, AiAuthStatusResult } from '../../contract/ai-auth';
import type { TesterDetail } from '../../contract/tester';
import {
  setAiProvider,
  UnavailableAiProvider,
  type AiProvider,
  type FaceVerdict,
  type IdVerdict,
} from '../src/lib/ai-provider';
import { hashPassword } from '../src/lib/passwords';
import { build, envelope, injectAs, loginAs, type TestServer } from './helper';

const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
).toString('base64');

/** A provider whose verdicts the test scripts, one per call. */
class ScriptedProvider implements AiProvider {
  constructor(
    private readonly faces: FaceVerdict[] = [],
    private readonly cards: IdVerdict[] = [],
  ) {}
  async checkFace(): Promise<FaceVerdict> {
    return this.faces.shift() ?? { outcome: 'unavailable' };
  }
  async checkIdCard(): Promise<IdVerdict> {
    return this.cards.shift() ?? { outcome: 'unavailable' };
  }
}

let s: TestServer;
let dataDir: string;
const ids: Record<string, number> = {};
const tokens: Record<string, string> = {};

async function token(loginId: string): Promise<string> {
  tokens[loginId] ??= await loginAs(s.app, loginId);
  return tokens[loginId];
}
async function post(loginId: string, url: string, payload: unknown): Promise<LightMyRequestResponse> {
  return injectAs(s.app, await token(loginId), {
    method: 'POST',
    url: `/api/v1${url}`,
    payload: payload as object,
  });
}
async function face(loginId: string) {
  return post(loginId, '/ai_auth/face.php', { image: PNG, content_type: 'image/png' });
}
async function card(loginId: string) {
  return post(loginId, '/ai_auth/id_card.php', { image: PNG, content_type: 'image/png' });
}
async function sitting(loginId: string) {
  const { rows } = await s.db.query<{
    id: number;
    status: number;
    kicked: number;
    logout_at: Date | null;
    authenticated_at: Date | null;
    head_shot_key: string | null;
    id_card_key: string | null;
    ai_namematch: number | null;
  }>(`SELECT * FROM tests WHERE user_id = $1 ORDER BY id DESC LIMIT 1`, [ids[loginId]]);
  return rows[0]!;
}
async function setStartup(loginId: string, params: Record<string, unknown>) {
  await token(loginId);
  await s.db.query(`UPDATE tests SET startup_parameters = $2 WHERE id = $1`, [
    (await sitting(loginId)).id,
    JSON.stringify(params),
  ]);
}

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'ai-auth-test-'));
  // Sittings get the AI start-up URL's parameters (AI identity check on) unless a test sets its own.
  s = await build({ dataDir, defaultTesterUrlKey: 'demo-tester-ai' }, { objectStorage: true });
  const { rows } = await s.db.query<{ id: number; login_id: string }>(`SELECT id, login_id FROM users`);
  for (const r of rows) ids[r.login_id] = r.id;
});

afterEach(() => {
  setAiProvider(s.app, new UnavailableAiProvider());
});

afterAll(async () => {
  await s.close();
  await rm(dataDir, { recursive: true, force: true });
});

describe('AI identity check with the default (unavailable) provider', () => {
  it('never fakes a success: fallback 1 hands over to monitor authentication', async () => {
    const res = await face('tester01');
    expect(res.statusCode).toBe(200);
    const r = envelope<AiAuthAttemptResult>(res).result;
    expect(r.ok).toBe(false);
    expect(r.error).toMatchObject({ code: 'ai_unavailable', remaining: 0, limit: 3 });
    expect(r.status).toBe(2);
    expect(r.tester_status).toBe(1);
    const st = envelope<AiAuthStatusResult>(
      await post('tester01', '/ai_auth/status.php', { tester_id: ids.tester01 }),
    ).result;
    expect(st).toMatchObject({
      status: 2,
      process: 0,
      face_retry: 0,
      id_card_retry: 0,
      ai_all_retry: 0,
      fallback: 1,
    });
    expect(st.face_url).toBeNull(); // the photo was not accepted
    expect(st.messages.at(-1)).toMatchObject({ kind: 'face', code: 'ai_unavailable' });
    // The check is over for this sitting.
    expect((await face('tester01')).statusCode).toBe(409);
    const attempts = await s.db.query(`SELECT outcome FROM ai_auth_attempts WHERE test_id = $1`, [
      (await sitting('tester01')).id,
    ]);
    expect(attempts.rows).toEqual([{ outcome: 'unavailable' }]);
  });

  it('fallback 0 blocks the sitting at once, and the page leaves with PUT_MYSELF_AI (sessions ended)', async () => {
    await setStartup('tester02', { is_ai_faild_manual: 0 });
    const r = envelope<AiAuthAttemptResult>(await face('tester02')).result;
    expect(r).toMatchObject({ ok: false, status: 3 });
    expect(r.error!.message).toMatch(/logged out/);
    // Blocked: kicked until a manager lifts it, so nothing more can be done with the sitting.
    expect((await sitting('tester02')).kicked).toBe(1);
    expect((await post('tester02', '/tester/status.php', { status: 4 })).statusCode).toBe(403);
    // The spec's exit mode "kick out by oneself via AI" ends the session.
    const exit = await post('tester02', '/tester/kick_out.php', { method: 'PUT_MYSELF_AI' });
    expect(exit.statusCode).toBe(200);
    expect((await sitting('tester02')).logout_at).not.toBeNull();
    const after = await post('tester02', '/ai_auth/status.php', {});
    expect(after.statusCode).toBe(401);
    expect(envelope(after).code).toBe('session_ended');
    expect(envelope(after).message).toMatch(/ai forced logout/);
  });

  it('fallback 2 continues to the exam with the last photo, unauthenticated, for manager review', async () => {
    await setStartup('tester03', { is_ai_faild_manual: 2 });
    const r = envelope<AiAuthAttemptResult>(await face('tester03')).result;
    expect(r).toMatchObject({ ok: false, status: 4, tester_status: 3 });
    const t = await sitting('tester03');
    expect(t.status).toBe(3);
    expect(t.authenticated_at).toBeNull();
    expect(t.head_shot_key).toMatch(/^ai_face\//);
    const ev = await s.db.query(
      `SELECT 1 FROM examinee_logs WHERE test_id = $1 AND event = 'ai_auth_review'`,
      [t.id],
    );
    expect(ev.rows).toHaveLength(1);
  });
});

describe('AI identity check with a scripted provider', () => {
  it('passes face then ID card with a good name match: identificated and authenticated', async () => {
    await setStartup('tester04', { ai_namematch: 80 });
    setAiProvider(s.app, new ScriptedProvider([{ outcome: 'ok' }], [{ outcome: 'ok', nameMatch: 92 }]));
    const early = await card('tester04');
    expect(early.statusCode).toBe(409); // face first
    const f = envelope<AiAuthAttemptResult>(await face('tester04')).result;
    expect(f).toMatchObject({ ok: true, error: null, status: 0, process: 1, tester_status: 1 });
    expect(f.url).toMatch(/ai_face/);
    const c = envelope<AiAuthAttemptResult>(await card('tester04')).result;
    expect(c).toMatchObject({ ok: true, error: null, status: 1, process: 2, tester_status: 3 });
    const t = await sitting('tester04');
    expect(t.status).toBe(3);
    expect(t.authenticated_at).not.toBeNull();
    expect(t.ai_namematch).toBe(92);
    expect(t.id_card_key).toMatch(/^ai_id_card\//);
    const d = envelope<TesterDetail>(
      await injectAs(s.app, await token('tester04'), { method: 'GET', url: '/api/v1/tester/detail.php' }),
    ).result;
    expect(d.head_shot_uri).toMatch(/ai_face/);
    expect(d.id_card_uri).toMatch(/ai_id_card/);
    expect((await face('tester04')).statusCode).toBe(409);
  });

  it('counts face retries against ai_face_retry and falls back when the limit is reached', async () => {
    await setStartup('tester05', { ai_face_retry: 2, ai_all_retry: 5 });
    setAiProvider(
      s.app,
      new ScriptedProvider([{ outcome: 'rejected', reason: 'no_face' }, { outcome: 'rejected' }]),
    );
    const r1 = envelope<AiAuthAttemptResult>(await face('tester05')).result;
    expect(r1).toMatchObject({ ok: false, status: 0, process: 0 });
    expect(r1.error).toMatchObject({ code: 'face_not_recognised', remaining: 1, limit: 2 });
    const r2 = envelope<AiAuthAttemptResult>(await face('tester05')).result;
    expect(r2.error).toMatchObject({ code: 'retry_limit_exceeded', remaining: 0, limit: 2 });
    expect(r2.status).toBe(2);
    const st = envelope<AiAuthStatusResult>(await post('tester05', '/ai_auth/status.php', {})).result;
    expect(st).toMatchObject({ face_retry: 2, ai_all_retry: 2, limits: { face: 2, id_card: 3, all: 5 } });
  });

  it('counts every failure against ai_all_retry, and sends a mismatch back to the face photo', async () => {
    await setStartup('tester06', { ai_face_retry: 5, ai_idcard_retry: 5, ai_all_retry: 3, ai_namematch: 80 });
    setAiProvider(
      s.app,
      new ScriptedProvider(
        [{ outcome: 'ok' }, { outcome: 'ok' }],
        [{ outcome: 'ok', nameMatch: 40 }, { outcome: 'unreadable' }, { outcome: 'mismatch' }],
      ),
    );
    await face('tester06');
    const low = envelope<AiAuthAttemptResult>(await card('tester06')).result;
    expect(low.error).toMatchObject({ code: 'person_not_confirmed', remaining: 2, limit: 3 });
    expect(low.process).toBe(0);
    expect((await card('tester06')).statusCode).toBe(409); // must retake the face first
    await face('tester06');
    const unreadable = envelope<AiAuthAttemptResult>(await card('tester06')).result;
    expect(unreadable.error).toMatchObject({ code: 'id_card_not_recognised', remaining: 4, limit: 5 });
    expect(unreadable.process).toBe(1);
    const last = envelope<AiAuthAttemptResult>(await card('tester06')).result;
    expect(last.error).toMatchObject({ code: 'retry_limit_exceeded', limit: 3 });
    expect(last.status).toBe(2);
  });

  it('treats a crashing provider as unavailable', async () => {
    setAiProvider(s.app, {
      checkFace: () => Promise.reject(new Error('model exploded')),
      checkIdCard: () => Promise.reject(new Error('model exploded')),
    });
    const res = await face('tester07');
    expect(res.statusCode).toBe(200);
    expect(envelope<AiAuthAttemptResult>(res).result.error!.code).toBe('ai_unavailable');
  });
});

describe('AI identity check: permissions and bad input', () => {
  it('refuses other actors, a disabled check, and bad images', async () => {
    expect((await post('checker01', '/ai_auth/face.php', { image: PNG })).statusCode).toBe(403);
    await setStartup('tester08', { is_ai_auth: 0 });
    expect((await face('tester08')).statusCode).toBe(409);
    await setStartup('tester09', {});
    expect((await post('tester09', '/ai_auth/face.php', {})).statusCode).toBe(400);
    expect((await post('tester09', '/ai_auth/face.php', { image: { a: 1 } })).statusCode).toBe(400);
    const text = await post('tester09', '/ai_auth/face.php', {
      image: Buffer.from('plain text').toString('base64'),
    });
    expect(text.statusCode).toBe(415);
    const big = Buffer.concat([
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
      Buffer.alloc(6 * 1024 * 1024),
    ]);
    const tooBig = await post('tester09', '/ai_auth/face.php', { image: big.toString('base64') });
    expect(tooBig.statusCode).toBe(413);
    expect(envelope(tooBig)).toMatchObject({ status: 413, result: null });
    // Nothing was counted for refused uploads.
    const st = envelope<AiAuthStatusResult>(await post('tester09', '/ai_auth/status.php', {})).result;
    expect(st).toMatchObject({ status: 0, face_retry: 0, ai_all_retry: 0, messages: [] });
  });

  it("keeps every decision with its reason and scores for managers of the group, never in the examinee's own detail", async () => {
    await setStartup('tester11', { ai_face_retry: 3, ai_all_retry: 5, ai_namematch: 80 });
    setAiProvider(
      s.app,
      new ScriptedProvider(
        [
          { outcome: 'rejected', reason: 'too_dark', scores: { faces: 1, luma: 13 } },
          { outcome: 'ok', scores: { faces: 1, luma: 120 } },
        ],
        [
          {
            outcome: 'mismatch',
            reason: 'face_uncertain',
            nameMatch: 95,
            scores: { cosine: 0.66, match_class: 2, id_type_read: 1 },
          },
        ],
      ),
    );
    await face('tester11');
    await face('tester11');
    await card('tester11');
    const detail = async (loginId: string) =>
      injectAs(s.app, await token(loginId), {
        method: 'GET',
        url: `/api/v1/tester/detail.php?tester_id=${ids.tester11}`,
      });
    const d = envelope<TesterDetail>(await detail('manager01')).result;
    expect(d.ai_auth).toMatchObject({ status: 0, face_retry: 1, ai_all_retry: 2 });
    expect(d.ai_auth!.attempts.map((a) => [a.kind, a.outcome, a.reason])).toEqual([
      ['face', 'rejected', 'too_dark'],
      ['face', 'ok', ''],
      ['id_card', 'mismatch', 'face_uncertain'],
    ]);
    expect(d.ai_auth!.attempts[2]!.scores).toMatchObject({ cosine: 0.66, match_class: 2, name_match: 95 });
    const imageUrl = d.ai_auth!.attempts[0]!.image_url ?? '';
    expect(imageUrl, imageUrl).toMatch(
      /\/s3\/recordings\/images\/ai_face\/\d+\/[\w-]+\.(jpg|png|webp)\?.*X-Amz-Signature=/,
    );
    // A supervisor sees it too; the examinee's own detail does not carry it.
    expect(envelope<TesterDetail>(await detail('supervisor01')).result.ai_auth?.attempts).toHaveLength(3);
    const own = envelope<TesterDetail>(
      await injectAs(s.app, await token('tester11'), { method: 'GET', url: '/api/v1/tester/detail.php' }),
    ).result;
    expect(own).not.toHaveProperty('ai_auth');
    // A test manager of another group may not open this examinee at all.
    const g = await s.db.query<{ id: number }>(
      `INSERT INTO exam_groups (code, name) VALUES ('OTHER-AI', 'other') RETURNING id`,
    );
    await s.db.query(
      `INSERT INTO users (login_id, password_hash, actor, name, group_id) VALUES ('manager-other-ai', $1, 3, 'x', $2)`,
      [await hashPassword('demo-pass'), g.rows[0]!.id],
    );
    expect((await detail('manager-other-ai')).statusCode).toBe(403);
  });

  it('shows the AI status to the tester, a matched checker and managers only', async () => {
    await token('tester10');
    const body = { tester_id: ids.tester10 };
    expect((await post('tester01', '/ai_auth/status.php', body)).statusCode).toBe(403);
    expect((await post('checker01', '/ai_auth/status.php', body)).statusCode).toBe(403);
    expect((await post('manager01', '/ai_auth/status.php', body)).statusCode).toBe(200);
    expect((await post('supervisor01', '/ai_auth/status.php', body)).statusCode).toBe(200);
    expect((await post('checker01', '/ai_auth/status.php', {})).statusCode).toBe(400);
  });
});
