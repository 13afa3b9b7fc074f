import { build, envelope, injectAs, loginAsActor, type TestServer } from './helper';
import type { TemplateAdminListResult, TemplateAdminRow } from '../../contract/templates';

let s: TestServer;
let admin: string;

beforeAll(async () => {
  s = await build();
  admin = await loginAsActor(s.app, 4);
});
afterAll(async () => s.close());

const save = (token: string, payload: Record<string, unknown>) =>
  injectAs(s.app, token, { method: 'POST', url: '/api/v1/templates/save.php', payload });
const valid = {
  kind: 'terms_of_service',
  template_id: 7,
  lang: 'en',
  title: 'Terms <b>v2</b>',
  body: '<h2 onclick="x()">Use</h2><p>Be <strong>fair</strong>.<script>steal()</script></p><a href="#">link</a>',
  footer_url: 'https://example.com/terms',
};

describe('templates admin access per actor', () => {
  it.each([1, 2, 3] as const)('actor %i may neither list nor save', async (actor) => {
    const token = await loginAsActor(s.app, actor);
    expect(
      (await injectAs(s.app, token, { method: 'GET', url: '/api/v1/templates/list.php' })).statusCode,
    ).toBe(403);
    expect((await save(token, valid)).statusCode).toBe(403);
  });
  it('needs a login', async () => {
    expect((await s.app.inject({ method: 'GET', url: '/api/v1/templates/list.php' })).statusCode).toBe(401);
  });
});

describe('templates/list', () => {
  it('lists every kind, template id and language (the seeded defaults in ja and en)', async () => {
    const token = await loginAsActor(s.app, 5);
    const res = await injectAs(s.app, token, { method: 'GET', url: '/api/v1/templates/list.php' });
    expect(res.statusCode).toBe(200);
    const list = envelope<TemplateAdminListResult>(res).result.list;
    for (const kind of ['terms_of_service', 'privacy_policy', 'inquiry', 'examining_term']) {
      expect(
        list
          .filter((r) => r.kind === kind && r.template_id === 0)
          .map((r) => r.lang)
          .sort(),
      ).toEqual(['en', 'ja']);
    }
  });
});

describe('templates/save', () => {
  it('stores sanitised HTML, audits it, and the public endpoint shows it', async () => {
    const res = await save(admin, valid);
    expect(res.statusCode).toBe(200);
    const row = envelope<TemplateAdminRow>(res).result;
    expect(row).toMatchObject({
      kind: 'terms_of_service',
      template_id: 7,
      lang: 'en',
      title: 'Terms v2',
      body: '<h2>Use</h2><p>Be <strong>fair</strong>.</p>link',
      footer_url: 'https://example.com/terms',
    });
    const pub = await s.app.inject({
      method: 'GET',
      url: '/api/v1/get_terms_of_service.php?template_id=7&lang=en',
    });
    expect(envelope<{ template_body: string }>(pub).result.template_body).toBe(row.body);
    const audited = await s.db.query<{ location: string }>(
      `SELECT location FROM logs WHERE source = 'audit' AND type = 'settings.template.save' ORDER BY id DESC LIMIT 1`,
    );
    expect(audited.rows[0]?.location).toBe('template:terms_of_service:7:en');
  });

  it('replaces an existing template in place', async () => {
    await save(admin, { ...valid, body: '<p>second</p>' });
    const list = envelope<TemplateAdminListResult>(
      await injectAs(s.app, admin, { method: 'GET', url: '/api/v1/templates/list.php' }),
    ).result.list.filter((r) => r.kind === 'terms_of_service' && r.template_id === 7 && r.lang === 'en');
    expect(list.map((r) => r.body)).toEqual(['<p>second</p>']);
  });

  it.each([
    [{ ...valid, kind: 'nope' }, undefined],
    [{ ...valid, lang: 'zn' }, undefined],
    [{ ...valid, template_id: -1 }, undefined],
    [{ ...valid, title: '<script>x</script>' }, 'title'],
    [{ ...valid, footer_url: 'javascript:alert(1)' }, 'footer_url'],
    [{ kind: valid.kind, template_id: 7, lang: 'en', title: 'x' }, undefined],
  ])('%j → 400', async (payload, field) => {
    const res = await save(admin, payload);
    expect(res.statusCode).toBe(400);
    const body = envelope<{ field: string } | null>(res);
    expect(body.status).toBe(400);
    if (field) expect(body.result?.field).toBe(field);
  });
});
