import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AiAuthAttemptResult } from '../../../contract/ai-auth';
import { setAiProvider, type AiImage } from '../../src/lib/ai-provider';
import { IdentityEngine } from '../../src/lib/ai/identity';
import { nameMatchRate } from '../../src/lib/ai/name-match';
import { aiSettings } from '../../src/lib/ai/settings';
import { build, envelope, injectAs, loginAs, type TestServer } from '../helper';
import { makeImageFixtures, missingFixtureTools, type AiFixtures } from './fixtures';

const missing = missingFixtureTools();
const check = (res: { statusCode: number; body: string }) => {
  if (res.statusCode !== 200) throw new Error(`HTTP ${res.statusCode}: ${res.body}`);
  return envelope<AiAuthAttemptResult>(res as never);
};
const png = (file: string): AiImage => ({ body: readFileSync(file), type: 'image/png' });

describe('name-match rate', () => {
  it('normalises spaces and width, slides over the OCR lines', () => {
    expect(nameMatchRate('山田 花子', '運転免許証\n山田 花 子\nX1234')).toBe(100);
    expect(nameMatchRate('Eileen Collins', "DRIVER'S LICENSE\nEILEEN COLLINS\n")).toBe(100);
    expect(nameMatchRate('John Smith', 'EILEEN COLLINS')).toBeLessThan(50);
    expect(nameMatchRate('佐藤 一郎', '山田 花子')).toBe(1);
  });
});

describe.skipIf(missing)(
  `identity check with the real models${missing ? ` (skipped: ${missing})` : ''}`,
  () => {
    let fx: AiFixtures;
    let engine: IdentityEngine;

    beforeAll(async () => {
      fx = makeImageFixtures();
      engine = await IdentityEngine.create(aiSettings({}));
    }, 120_000);

    afterAll(async () => {
      await engine?.close();
      fx?.cleanup();
    });

    it('accepts one frontal, sharp face', async () => {
      const v = await engine.checkFace(png(fx.astronaut));
      expect(v.outcome).toBe('ok');
      expect(v.scores).toMatchObject({ faces: 1 });
    });

    it.each([
      ['no face', () => fx.noFace, 'no_face'],
      ['two faces', () => fx.twoFaces, 'multiple_faces'],
      ['a blurred photo (the detector hallucinates faces on it)', () => fx.blurred, 'blurred'],
    ])('rejects %s', async (_n, file, reason) => {
      const v = await engine.checkFace(png(file()));
      expect(v).toMatchObject({ outcome: 'rejected', reason });
    });

    it('rejects a profile', async () => {
      const v = await engine.checkFace(png(fx.profile));
      expect(v.outcome).toBe('rejected');
      expect(['low_score', 'not_facing_camera']).toContain(v.reason);
    });

    it('same person on the card: cosine above the match threshold; Latin name read', async () => {
      const v = await engine.checkIdCard(png(fx.cardLatin), png(fx.astronaut), 'Eileen Collins');
      expect(v.outcome).toBe('ok');
      expect(v.scores!.cosine).toBeGreaterThanOrEqual(0.72);
      expect(v.nameMatch).toBeGreaterThanOrEqual(90);
    });

    it('Japanese name read with the jpn model', async () => {
      const v = await engine.checkIdCard(png(fx.cardJapanese), png(fx.astronaut), '山田 花子');
      expect(v.outcome).toBe('ok');
      expect(v.nameMatch).toBeGreaterThanOrEqual(90);
    });

    it('a different name gives a low rate; a different person is a mismatch', async () => {
      const wrongName = await engine.checkIdCard(png(fx.cardLatin), png(fx.astronaut), 'John Smith');
      expect(wrongName.nameMatch).toBeLessThan(50);
      const other = await engine.checkIdCard(png(fx.cardOther), png(fx.astronaut), 'Eileen Collins');
      expect(other).toMatchObject({ outcome: 'mismatch', reason: 'face_different' });
      expect(other.scores!.cosine).toBeLessThan(0.6);
    });

    describe('through ai_auth with the real provider', () => {
      let s: TestServer;
      let dataDir: string;
      const post = async (token: string, url: string, file: string) =>
        check(
          await injectAs(s.app, token, {
            method: 'POST',
            url: `/api/v1${url}`,
            payload: { image: readFileSync(file).toString('base64'), content_type: 'image/png' },
          }),
        ).result;

      const login = async (loginId: string) => {
        const t = await loginAs(s.app, loginId);
        await s.db.query(
          `UPDATE tests SET startup_parameters = '{"is_ai_auth":1,"is_ai_idcard_request":1,"ai_idcard_type":"1,2"}'
          WHERE user_id = (SELECT id FROM users WHERE login_id = $1)`,
          [loginId],
        );
        return t;
      };

      beforeAll(async () => {
        dataDir = await mkdtemp(path.join(os.tmpdir(), 'ai-identity-'));
        s = await build({ dataDir });
        setAiProvider(s.app, engine);
        await s.db.query(
          `UPDATE users SET name = 'Eileen Collins' WHERE login_id IN ('tester01', 'tester02')`,
        );
      });
      afterAll(async () => {
        await s?.close();
        await rm(dataDir, { recursive: true, force: true });
      });

      it('face then card pass; every decision is stored with its scores', async () => {
        const t = await login('tester01');
        const face = await post(t, '/ai_auth/face.php', fx.astronaut);
        expect(face).toMatchObject({ ok: true, error: null });
        const card = await post(t, '/ai_auth/id_card.php', fx.cardLatin);
        expect(card).toMatchObject({ ok: true, status: 1, tester_status: 3 });
        const { rows } = await s.db.query<{ kind: string; outcome: string; scores: Record<string, number> }>(
          `SELECT kind, outcome, scores FROM ai_auth_attempts a JOIN tests t ON t.id = a.test_id
          JOIN users u ON u.id = t.user_id WHERE u.login_id = 'tester01' ORDER BY a.id`,
        );
        expect(rows.map((r) => [r.kind, r.outcome])).toEqual([
          ['face', 'ok'],
          ['id_card', 'ok'],
        ]);
        expect(rows[1]!.scores.cosine).toBeGreaterThan(0.72);
        expect(rows[1]!.scores.name_match).toBeGreaterThanOrEqual(90);
      });

      it('no face → "cannot recognise the face" with the remaining count; other person → start over', async () => {
        const t = await login('tester02');
        const bad = await post(t, '/ai_auth/face.php', fx.noFace);
        expect(bad.error).toMatchObject({ code: 'face_not_recognised', remaining: 2, limit: 3 });
        expect((await post(t, '/ai_auth/face.php', fx.astronaut)).ok).toBe(true);
        const other = await post(t, '/ai_auth/id_card.php', fx.cardOther);
        expect(other.error).toMatchObject({ code: 'person_not_confirmed' });
        expect(other.process).toBe(0);
      });
    });
  },
);
