import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startupQuery } from '../src/routes/shorturl';
import { build, type TestServer } from './helper';

function queryOf(location: string): Record<string, string> {
  expect(location.startsWith('/?')).toBe(true);
  return Object.fromEntries(new URLSearchParams(location.slice(2)));
}

describe('GET /s/:url_key', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await build();
  });
  afterAll(async () => {
    await s.close();
  });

  it('redirects the demo examinee URL to the SPA with its start-up query (snake_case, values as text)', async () => {
    const res = await s.app.inject({ method: 'GET', url: '/s/demo-tester' });
    expect(res.statusCode).toBe(302);
    expect(res.headers['cache-control']).toBe('no-store');
    const q = queryOf(String(res.headers.location));
    expect(q).toMatchObject({
      actor: '1',
      lang: 'ja',
      is_mc_startup: '1',
      is_proctor: '1',
      exam_url: '/demo-exam/',
      exam_name: 'Demo Exam',
      group: 'DEMO',
      is_ai_auth: '0',
    });
  });

  it.each([
    ['demo-tester-ai', { actor: '1', is_ai_auth: '1', ai_idcard_type: '1,2,3', ai_namematch: '80' }],
    ['demo-checker', { actor: '2', matching_timeout: '5' }],
    ['demo-manager', { actor: '3' }],
    ['demo-admin', { actor: '4' }],
  ])('redirects %s', async (key, expected) => {
    const res = await s.app.inject({ method: 'GET', url: `/s/${key}` });
    expect(res.statusCode).toBe(302);
    expect(queryOf(String(res.headers.location))).toMatchObject(expected);
  });

  it('adds actor and target from the row when the parameters leave them out', async () => {
    await s.db.query(
      `INSERT INTO short_urls (actor, target, url_key, param) VALUES (2, 'exam.example.com', 'plain-key', $1)`,
      [
        JSON.stringify({
          lang: 'en',
          is_debug: true,
          memo: 'a b&c',
          empty: null,
          list: ['eye_rot', 'voice'],
        }),
      ],
    );
    const res = await s.app.inject({ method: 'GET', url: '/s/plain-key' });
    expect(res.statusCode).toBe(302);
    expect(String(res.headers.location)).not.toContain(' ');
    expect(queryOf(String(res.headers.location))).toEqual({
      lang: 'en',
      is_debug: '1',
      memo: 'a b&c',
      empty: '',
      list: 'eye_rot,voice',
      actor: '2',
      target: 'exam.example.com',
      url_key: 'plain-key',
    });
  });

  it.each(['/s/unknown-key', '/s/bad%20key', `/s/${'k'.repeat(100)}`])(
    'answers %s with a 404 page',
    async (url) => {
      const res = await s.app.inject({ method: 'GET', url });
      expect(res.statusCode).toBe(404);
      expect(res.headers['content-type']).toContain('text/html');
      expect(res.body).toContain('ページが見つかりません');
      expect(res.body).not.toContain('<script');
      expect(String(res.headers['content-security-policy'])).toContain("script-src 'self'");
    },
  );
});

describe('startupQuery', () => {
  it('builds the query from a stored JSON text as well', () => {
    expect(
      startupQuery({ actor: 1, target: '', url_key: 'k1', param: '{"lang":"ja","max_rectime":10800}' }),
    ).toBe('lang=ja&max_rectime=10800&actor=1&url_key=k1');
    expect(startupQuery({ actor: 5, target: '', url_key: 'k5', param: null })).toBe('actor=5&url_key=k5');
  });
});

describe('demo exam page', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await build();
  });
  afterAll(async () => {
    await s.close();
  });

  it('serves the Japanese page by default, with its script from a file (CSP script-src self)', async () => {
    const res = await s.app.inject({ method: 'GET', url: '/demo-exam/' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/html');
    expect(res.body).toContain('<html lang="ja">');
    expect(res.body).toContain('デモ試験');
    expect(res.body).toContain('<script src="/demo-exam/exam.js" defer></script>');
    // No inline script or style: every <script> has a src.
    expect(res.body.match(/<script(?![^>]*\ssrc=)[^>]*>/g)).toBeNull();
    expect(res.body).not.toMatch(/<style|style="|onclick=/);
    // The questions come only from the demo exam's back end, for a redeemed token.
    expect(res.body).not.toMatch(/<fieldset|data-answer/);
    expect(String(res.headers['content-security-policy'])).toContain("script-src 'self'");
  });

  it('serves English with ?lang=en and falls back to Japanese for anything else', async () => {
    const en = await s.app.inject({ method: 'GET', url: '/demo-exam/?lang=en' });
    expect(en.body).toContain('<html lang="en">');
    expect(en.body).toContain('Demo exam');
    expect(en.body).toContain('Finish');
    const other = await s.app.inject({ method: 'GET', url: '/demo-exam/?lang=%3Cscript%3E' });
    expect(other.body).toContain('<html lang="ja">');
    expect(other.body).not.toContain('<script>');
  });

  it('serves exam.js and exam.css', async () => {
    const js = await s.app.inject({ method: 'GET', url: '/demo-exam/exam.js' });
    expect(js.statusCode).toBe(200);
    expect(js.headers['content-type']).toContain('text/javascript');
    expect(js.body).toContain('demo-exam-finished');
    const css = await s.app.inject({ method: 'GET', url: '/demo-exam/exam.css' });
    expect(css.statusCode).toBe(200);
    expect(css.headers['content-type']).toContain('text/css');
  });

  it('redirects /demo-exam to /demo-exam/ keeping the query', async () => {
    const res = await s.app.inject({ method: 'GET', url: '/demo-exam?lang=en' });
    expect(res.statusCode).toBe(301);
    expect(res.headers.location).toBe('/demo-exam/?lang=en');
  });
});
