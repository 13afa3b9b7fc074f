import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AI_AUTH_STATUS, AI_FAILED_MODE, type AiAuthAttemptResult } from '../../contract/ai-auth';
import type { AiAuthAttempt, TesterDetail } from '../../contract/tester';
import { setAiProvider } from '../src/lib/ai-provider';
import { IdentityEngine } from '../src/lib/ai/identity';
import { aiSettings } from '../src/lib/ai/settings';
import { hashPassword } from '../src/lib/passwords';
import { makeImageFixtures, missingFixtureTools, type AiFixtures } from './ai/fixtures';
import { build, envelope, injectAs, loginAs, type TestServer } from './helper';

// Every decision is stored with its scores, so a manager can see why. The real identity engine
// decides (Human + Tesseract, as in production); the decisions reach the examinee detail (tester/detail.php,
// asked by test id as the /examinees/{id} page does) for the actors allowed to see that examinee only.

const missing = missingFixtureTools();

describe.skipIf(missing)(
  `AI identity decisions in the examinee detail${missing ? ` (skipped: ${missing})` : ''}`,
  () => {
    let fx: AiFixtures;
    let engine: IdentityEngine;
    let s: TestServer;
    let dataDir: string;
    const tokens: Record<string, string> = {};
    const token = async (loginId: string) => (tokens[loginId] ??= await loginAs(s.app, loginId));

    /** The tester's sitting id, after logging the tester in with the given start-up parameters. */
    async function sitting(loginId: string, params: Record<string, unknown>): Promise<number> {
      await token(loginId);
      const { rows } = await s.db.query<{ id: number }>(
        `UPDATE tests SET startup_parameters = $2 WHERE id = (
           SELECT t.id FROM tests t JOIN users u ON u.id = t.user_id WHERE u.login_id = $1 ORDER BY t.id DESC LIMIT 1)
         RETURNING id`,
        [loginId, JSON.stringify({ is_ai_auth: 1, is_ai_idcard_request: 1, ...params })],
      );
      return rows[0]!.id;
    }
    async function photo(loginId: string, kind: 'face' | 'id_card', file: string) {
      const res = await injectAs(s.app, await token(loginId), {
        method: 'POST',
        url: `/api/v1/ai_auth/${kind}.php`,
        payload: { image: readFileSync(file).toString('base64'), content_type: 'image/png' },
      });
      expect(res.statusCode, res.body).toBe(200);
      return envelope<AiAuthAttemptResult>(res).result;
    }
    const detail = async (loginId: string, query: string) =>
      injectAs(s.app, await token(loginId), { method: 'GET', url: `/api/v1/tester/detail.php?${query}` });
    async function aiAuthSeenBy(loginId: string, testId: number) {
      const res = await detail(loginId, `test_id=${testId}`);
      expect(res.statusCode, res.body).toBe(200);
      return envelope<TesterDetail>(res).result.ai_auth;
    }
    const why = (a: AiAuthAttempt) => [a.kind, a.outcome, a.reason];

    beforeAll(async () => {
      fx = makeImageFixtures();
      engine = await IdentityEngine.create(aiSettings({}));
      dataDir = await mkdtemp(path.join(os.tmpdir(), 'ai-decisions-'));
      s = await build({ dataDir, defaultTesterUrlKey: 'demo-tester-ai' }, { objectStorage: true });
      setAiProvider(s.app, engine);
      // The name printed on the Latin card fixture.
      await s.db.query(`UPDATE users SET name = 'Eileen Collins' WHERE login_id = 'tester01'`);
      const g = await s.db.query<{ id: number }>(
        `INSERT INTO exam_groups (code, name) VALUES ('OTHER-AI', 'other group') RETURNING id`,
      );
      await s.db.query(
        `INSERT INTO users (login_id, password_hash, actor, name, group_id) VALUES ('manager-other', $1, 3, 'x', $2)`,
        [await hashPassword('demo-pass'), g.rows[0]!.id],
      );
    }, 180_000);

    afterAll(async () => {
      await s?.close();
      await engine?.close();
      fx?.cleanup();
      if (dataDir) await rm(dataDir, { recursive: true, force: true });
    });

    it("shows the group's test manager every decision of the sitting, oldest first, with the real scores", async () => {
      const testId = await sitting('tester01', {
        is_ai_faild_manual: AI_FAILED_MODE.manual,
        ai_face_retry: 3,
        ai_idcard_retry: 3,
        ai_all_retry: 5,
        ai_idcard_type: '1,2,3',
        ai_namematch: 80,
      });
      expect((await photo('tester01', 'face', fx.noFace)).error?.code).toBe('face_not_recognised');
      expect((await photo('tester01', 'face', fx.astronaut)).ok).toBe(true);
      expect((await photo('tester01', 'id_card', fx.cardOther)).error?.code).toBe('person_not_confirmed');
      expect((await photo('tester01', 'face', fx.astronaut)).ok).toBe(true);
      expect(await photo('tester01', 'id_card', fx.cardLatin)).toMatchObject({ ok: true, status: 1 });

      const ai = (await aiAuthSeenBy('manager01', testId))!;
      expect(ai).toMatchObject({
        status: AI_AUTH_STATUS.passed,
        face_retry: 1,
        id_card_retry: 0,
        ai_all_retry: 2,
      });
      expect(ai.attempts.map(why)).toEqual([
        ['face', 'rejected', 'no_face'],
        ['face', 'ok', ''],
        ['id_card', 'mismatch', 'face_different'],
        ['face', 'ok', ''],
        ['id_card', 'ok', ''],
      ]);
      const [noFace, face, other, , card] = ai.attempts;
      // Face photos: the face count and the quality figures the gate looked at.
      expect(noFace!.scores).toMatchObject({ faces: 0 });
      expect(noFace!.scores.sharpness).toBeGreaterThan(0);
      expect(noFace!.scores.luma).toBeGreaterThan(40);
      expect(face!.scores).toMatchObject({ faces: 1 });
      expect(face!.scores.face_side).toBeGreaterThanOrEqual(100);
      expect(Math.abs(face!.scores.yaw!)).toBeLessThanOrEqual(25);
      // ID photos: similarity and its class (1 same, 3 different), the name-match rate and the ID type read.
      expect(other!.scores.cosine).toBeLessThan(0.6);
      expect(other!.scores.match_class).toBe(3);
      expect(card!.scores.cosine).toBeGreaterThanOrEqual(0.72);
      expect(card!.scores).toMatchObject({ match_class: 1, id_type_read: 1 });
      expect(card!.scores.name_match).toBeGreaterThanOrEqual(80);
      const times = ai.attempts.map((a) => Date.parse(a.created_at));
      expect(times.every((t, i) => !Number.isNaN(t) && (i === 0 || t >= times[i - 1]!))).toBe(true);
      // The photo of each decision opens from its signed link (an <img>/<a> without a bearer token).
      const img = await s.app.inject({ method: 'GET', url: noFace!.image_url! });
      expect(img.statusCode).toBe(200);
      expect(img.headers['content-type']).toBe('image/png');
      expect(img.rawPayload.equals(readFileSync(fx.noFace))).toBe(true);
    });

    it.each([
      ['forced logout', AI_FAILED_MODE.logout, AI_AUTH_STATUS.logout, 'tester02'],
      ['monitor authentication', AI_FAILED_MODE.manual, AI_AUTH_STATUS.manual, 'tester03'],
      ['continued for review', AI_FAILED_MODE.continue, AI_AUTH_STATUS.review, 'tester04'],
    ])('shows which fallback was taken when the retries ran out: %s', async (_, mode, status, loginId) => {
      const testId = await sitting(loginId, { is_ai_faild_manual: mode, ai_face_retry: 1 });
      const r = await photo(loginId, 'face', fx.noFace);
      expect(r).toMatchObject({ ok: false, status, error: { code: 'retry_limit_exceeded' } });
      const ai = (await aiAuthSeenBy('manager01', testId))!;
      expect(ai).toMatchObject({ status, face_retry: 1, ai_all_retry: 1 });
      expect(ai.attempts.map(why)).toEqual([['face', 'rejected', 'no_face']]);
      if (status === AI_AUTH_STATUS.logout) {
        // The examinee's page leaves with PUT_MYSELF_AI, which logs it out; the manager still sees the decision.
        const exit = await injectAs(s.app, await token(loginId), {
          method: 'POST',
          url: '/api/v1/tester/kick_out.php',
          payload: { method: 'PUT_MYSELF_AI' },
        });
        expect(exit.statusCode).toBe(200);
        expect((await detail(loginId, '')).statusCode).toBe(401);
      }
    });

    it('is seen only by those who may see the examinee, and never by the examinee', async () => {
      const testId = await sitting('tester05', { is_ai_faild_manual: AI_FAILED_MODE.manual });
      await photo('tester05', 'face', fx.noFace);
      const { rows } = await s.db.query<{ id: number }>(`SELECT id FROM users WHERE login_id = 'tester05'`);
      const testerId = rows[0]!.id;
      for (const allowed of ['manager01', 'sysadmin01', 'supervisor01']) {
        expect((await aiAuthSeenBy(allowed, testId))?.attempts.map(why)).toEqual([
          ['face', 'rejected', 'no_face'],
        ]);
      }
      // A test manager of another group, a checker not matched to the examinee, another examinee: 403.
      for (const [who, query] of [
        ['manager-other', `test_id=${testId}`],
        ['manager-other', `tester_id=${testerId}`],
        ['checker01', `test_id=${testId}`],
        ['tester06', `tester_id=${testerId}`],
      ] as const) {
        const res = await detail(who, query);
        expect(res.statusCode, `${who} ${query}`).toBe(403);
        expect(res.body).not.toContain('no_face');
      }
      // The examinee's own detail does not carry the decisions.
      const own = await detail('tester05', '');
      expect(own.statusCode).toBe(200);
      expect(envelope<TesterDetail>(own).result).not.toHaveProperty('ai_auth');
      expect(own.body).not.toContain('no_face');
    });
  },
);
