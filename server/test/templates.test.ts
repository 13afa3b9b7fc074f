import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Actor } from '../../contract/common';
import type { TemplateListResult, TemplateResult } from '../../contract/templates';
import { DEFAULT_TEMPLATES } from '../src/db/seed-templates';
import { build, DEMO_LOGIN, envelope, injectAs, loginAs, type TestServer } from './helper';

const ACTORS: Actor[] = [1, 2, 3, 4, 5];

/** Endpoint → kind and method (spec §7: POST for the examining term, GET for the others). */
const ENDPOINTS = [
  { name: 'get_examining_term', kind: 'examining_term', method: 'POST' },
  { name: 'get_env_setting_term', kind: 'env_setting_term', method: 'GET' },
  { name: 'get_terms_of_service', kind: 'terms_of_service', method: 'GET' },
  { name: 'get_privacy_policy', kind: 'privacy_policy', method: 'GET' },
  { name: 'get_inquiry', kind: 'inquiry', method: 'GET' },
] as const;

type Endpoint = (typeof ENDPOINTS)[number];

function seeded(kind: string, lang: string) {
  return DEFAULT_TEMPLATES.find((t) => t.kind === kind && t.lang === lang)!;
}

describe('template endpoints', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await build();
  });
  afterAll(async () => {
    await s.close();
  });

  type Params = Record<string, string | number>;

  function get(e: Endpoint, params: Params, token?: string) {
    const qs = new URLSearchParams(
      Object.entries(params).map(([k, v]): [string, string] => [k, String(v)]),
    ).toString();
    if (e.method === 'POST') {
      const opts = { method: 'POST' as const, url: `/api/v1/${e.name}.php`, payload: params };
      return token ? injectAs(s.app, token, opts) : s.app.inject(opts);
    }
    const opts = { method: 'GET' as const, url: `/api/v1/${e.name}.php${qs ? '?' + qs : ''}` };
    return token ? injectAs(s.app, token, opts) : s.app.inject(opts);
  }

  describe.each(ENDPOINTS)('$name', (e) => {
    it('answers the default template in Japanese without login (template_id missing or -1)', async () => {
      for (const params of [
        {},
        { template_id: -1 },
        { template_id: -1, lang: 'ja' },
        { template_id: 0 },
      ] as Params[]) {
        const res = await get(e, params);
        expect(res.statusCode).toBe(200);
        const r = envelope<TemplateResult>(res).result;
        const t = seeded(e.kind, 'ja');
        expect(r).toEqual({
          template_id: 0,
          title: t.title,
          template_body: t.body,
          template_footer_url: t.footerUrl,
          updated_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
        });
      }
    });

    it('answers English for lang=en, and Japanese for zn or an unknown language (spec §1)', async () => {
      expect(envelope<TemplateResult>(await get(e, { lang: 'en' })).result.title).toBe(
        seeded(e.kind, 'en').title,
      );
      expect(envelope<TemplateResult>(await get(e, { lang: 'zn' })).result.title).toBe(
        seeded(e.kind, 'ja').title,
      );
      expect(envelope<TemplateResult>(await get(e, { lang: 'fr' })).result.title).toBe(
        seeded(e.kind, 'ja').title,
      );
    });

    it('falls back to Japanese when a template has no row in the asked language', async () => {
      await s.db.query(
        `INSERT INTO templates (kind, template_id, lang, title, body) VALUES ($1, 7, 'ja', 'JA only', '<p>x</p>')`,
        [e.kind],
      );
      const r = envelope<TemplateResult>(await get(e, { template_id: 7, lang: 'en' })).result;
      expect(r).toMatchObject({ template_id: 7, title: 'JA only', template_body: '<p>x</p>' });
    });

    it('answers 404 for an unknown template id', async () => {
      for (const id of [999, -5]) {
        const res = await get(e, { template_id: id });
        expect(res.statusCode).toBe(404);
        expect(envelope(res)).toMatchObject({ status: 404, code: 'not_found', result: null });
      }
    });

    it('rejects a non-numeric template id and an over-long lang with 400', async () => {
      for (const params of [
        { template_id: 'abc' },
        { template_id: '1.5' },
        { lang: 'x'.repeat(20) },
      ] as Params[]) {
        const res = await get(e, params);
        expect(res.statusCode).toBe(400);
        expect(envelope(res)).toMatchObject({ status: 400, result: null });
      }
    });

    it.each(ACTORS)('answers actor %i the same way', async (actor) => {
      const token = await loginAs(s.app, DEMO_LOGIN[actor]);
      const res = await get(e, { template_id: -1, lang: 'en' }, token);
      expect(res.statusCode).toBe(200);
      expect(envelope<TemplateResult>(res).result.title).toBe(seeded(e.kind, 'en').title);
    });

    it('lists the templates of its kind (_list)', async () => {
      const res = await s.app.inject({ method: 'GET', url: `/api/v1/${e.name}_list.php` });
      expect(res.statusCode).toBe(200);
      const { list } = envelope<TemplateListResult>(res).result;
      expect(list.filter((t) => t.template_id === 0).map((t) => t.lang)).toEqual(['en', 'ja']);
      for (const t of list)
        expect(Object.keys(t).sort()).toEqual(['lang', 'template_id', 'title', 'updated_at']);
      const en = envelope<TemplateListResult>(
        await s.app.inject({ method: 'GET', url: `/api/v1/${e.name}_list.php?lang=en` }),
      ).result.list;
      expect(en.every((t) => t.lang === 'en')).toBe(true);
    });
  });

  it('get_examining_term also takes its parameters from a form body, the query, or no body at all', async () => {
    const form = await s.app.inject({
      method: 'POST',
      url: '/api/v1/get_examining_term.php',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'template_id=-1&lang=en',
    });
    expect(envelope<TemplateResult>(form).result.title).toBe('Exam notes');
    const query = await s.app.inject({ method: 'POST', url: '/api/v1/get_examining_term.php?lang=en' });
    expect(envelope<TemplateResult>(query).result.title).toBe('Exam notes');
    const bare = await s.app.inject({ method: 'POST', url: '/api/v1/get_examining_term.php' });
    expect(bare.statusCode).toBe(200);
    expect(envelope<TemplateResult>(bare).result.title).toBe('試験上の注意');
  });

  it('get_examining_term rejects malformed JSON with 400 and a 2 MB body with 413', async () => {
    const bad = await s.app.inject({
      method: 'POST',
      url: '/api/v1/get_examining_term.php',
      headers: { 'content-type': 'application/json' },
      payload: '{"template_id":',
    });
    expect(bad.statusCode).toBe(400);
    expect(envelope(bad).status).toBe(400);
    const big = await s.app.inject({
      method: 'POST',
      url: '/api/v1/get_examining_term.php',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ lang: 'ja', pad: 'x'.repeat(2 * 1024 * 1024) }),
    });
    expect(big.statusCode).toBe(413);
    expect(envelope(big)).toMatchObject({ status: 413, code: 'payload_too_large' });
  });
});

describe('default template content (spec §1)', () => {
  const ALLOWED_TAGS = new Set(['p', 'h2', 'h3', 'ol', 'ul', 'li', 'strong']);

  it('has a ja and an en row for every kind', () => {
    for (const e of ENDPOINTS) for (const lang of ['ja', 'en']) expect(seeded(e.kind, lang)).toBeDefined();
  });

  it('uses only the sanitised tags p, h2, h3, ol, ul, li and strong, without attributes', () => {
    for (const t of DEFAULT_TEMPLATES) {
      for (const m of t.body.matchAll(/<\/?([a-zA-Z0-9]+)([^>]*)>/g)) {
        expect(ALLOWED_TAGS.has(m[1]!), `${t.kind}/${t.lang}: <${m[1]}>`).toBe(true);
        expect(m[2]).toBe('');
      }
    }
  });

  it('the Japanese terms of use are enacted 1 October 2020 and cover every topic and exam rule', () => {
    const body = seeded('terms_of_service', 'ja').body;
    for (const phrase of [
      '2020年10月1日に制定',
      '本サービスの内容',
      '機器の準備',
      '受験室',
      '禁止事項',
      '利用停止',
      '免責',
      'AIの学習',
      // Exam rules.
      'ウェブカメラとマイク',
      '試験実施者に提供',
      'モニターは1台',
      '画面録画ソフトウェア',
      'サングラス',
      'マスク',
      '電源を切り',
      '他の人を入室させない',
      '飲食',
      'ヘッドホン',
      '360度',
      '本人確認書類を一緒に撮影',
      '付箋等で隠して',
      '「次へ」ボタンを押した時点から、ウェブカメラの映像及びマイクの音声の送信が始まります',
    ]) {
      expect(body, phrase).toContain(phrase);
    }
  });

  it('the privacy notices cover AI training and retention, and the env-setting term says Next starts transmission', () => {
    expect(seeded('privacy_policy', 'ja').body).toContain('AIの学習');
    expect(seeded('privacy_policy', 'ja').body).toContain('保存期間');
    expect(seeded('privacy_policy', 'en').body).toContain('AI training');
    expect(seeded('env_setting_term', 'ja').body).toContain(
      '「次へ」ボタンを押すと、映像と音声の送信が始まります',
    );
    expect(seeded('env_setting_term', 'en').body).toContain(
      'press Next, transmission of video and audio starts',
    );
    expect(seeded('inquiry', 'ja').footerUrl).toBe('/inquiry');
    expect(seeded('terms_of_service', 'en').body).toContain('1 October 2020');
  });
});
