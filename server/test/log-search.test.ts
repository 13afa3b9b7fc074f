import { build, envelope, injectAs, loginAsActor, type TestServer } from './helper';
import type { LogSearchResult } from '../../contract/logs';

let s: TestServer;
let admin: string;

const search = (token: string, query: Record<string, string | number> = {}) =>
  injectAs(s.app, token, {
    method: 'GET',
    url: '/api/v1/logs/search.php',
    query: Object.fromEntries(Object.entries(query).map(([k, v]) => [k, String(v)])),
  });
const result = async (query: Record<string, string | number>) => {
  const res = await search(admin, query);
  expect(res.statusCode).toBe(200);
  return envelope<LogSearchResult>(res).result;
};

beforeAll(async () => {
  s = await build();
  admin = await loginAsActor(s.app, 4);
  // Known rows at known Tokyo times (UTC+9): 2031-05-01 10:00 → 01:00Z.
  const rows: [string, string, string, string, string, string | null, number | null, string][] = [
    [
      'client',
      'error',
      'error',
      'monitor-pane',
      'Peer 100% failed_x',
      'logsrch01',
      2,
      '2031-05-01T01:00:00Z',
    ],
    ['client', 'info', 'info', 'login', 'page shown', 'logsrch02', 1, '2031-05-01T01:30:00Z'],
    ['device', 'info', 'device', '', '{"camera":"ok"}', 'logsrch02', 1, '2031-05-01T02:00:00Z'],
    ['server', 'warn', 'job', 'retention', 'Deleted 3 rows', null, null, '2031-05-01T03:00:00Z'],
  ];
  for (const [source, level, type, module, details, loginId, actor, at] of rows) {
    await s.db.query(
      `INSERT INTO logs (source, level, type, module, details, login_id, actor, ip, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, '10.0.0.9', $8)`,
      [source, level, type, module, details, loginId, actor, at],
    );
  }
});
afterAll(async () => s.close());

describe('logs/search access per actor', () => {
  it.each([1, 2, 3] as const)('actor %i is refused', async (actor) => {
    const token = await loginAsActor(s.app, actor);
    const res = await search(token);
    expect(res.statusCode).toBe(403);
    expect(envelope(res).status).toBe(403);
  });
  it.each([4, 5] as const)('actor %i may search', async (actor) => {
    const token = await loginAsActor(s.app, actor);
    const res = await search(token, { source: 'all' });
    expect(res.statusCode).toBe(200);
    expect(envelope<LogSearchResult>(res).result.count).toBeGreaterThan(0);
  });
  it('needs a login', async () => {
    const res = await s.app.inject({ method: 'GET', url: '/api/v1/logs/search.php' });
    expect(res.statusCode).toBe(401);
  });
});

describe('logs/search filters', () => {
  const window = { from: '2031-05-01 00:00', to: '2031-05-01 23:59' };

  it('limits by time range (Tokyo wall clock, `to` includes its minute) and sorts newest first', async () => {
    const r = await result(window);
    expect(r.list.map((x) => x.created_at)).toEqual([
      '2031-05-01T12:00:00.000+09:00',
      '2031-05-01T11:00:00.000+09:00',
      '2031-05-01T10:30:00.000+09:00',
      '2031-05-01T10:00:00.000+09:00',
    ]);
    expect((await result({ from: '2031-05-01 10:30', to: '2031-05-01 11:00' })).count).toBe(2);
  });

  it('filters by source, actor, login id, level and text, and combines them', async () => {
    expect((await result({ ...window, source: 'device' })).list.map((x) => x.type)).toEqual(['device']);
    expect((await result({ ...window, source: 'server' })).list[0]?.module).toBe('retention');
    expect((await result({ ...window, actor: 2 })).list.map((x) => x.login_id)).toEqual(['logsrch01']);
    expect((await result({ ...window, login_id: 'logsrch02' })).count).toBe(2);
    expect((await result({ ...window, level: 'warn' })).list.map((x) => x.source)).toEqual(['server']);
    // ILIKE over type/module/details/location; % and _ are literal.
    expect((await result({ ...window, text: 'MONITOR' })).count).toBe(1);
    expect((await result({ ...window, text: '100%' })).count).toBe(1);
    expect((await result({ ...window, text: 'd_x' })).count).toBe(1);
    expect((await result({ ...window, text: '1_0' })).count).toBe(0);
    expect((await result({ ...window, login_id: 'logsrch02', source: 'client' })).count).toBe(1);
  });

  it('finds the audit trail of a login', async () => {
    const r = await result({ source: 'audit', login_id: 'sysadmin01', text: 'auth.login' });
    expect(r.count).toBeGreaterThan(0);
    expect(r.list[0]?.source).toBe('audit');
  });

  it('pages the result', async () => {
    for (let i = 0; i < 25; i += 1) {
      await s.db.query(
        `INSERT INTO logs (source, level, type, details, created_at) VALUES ('client', 'info', 'info', $1, $2)`,
        [`paging ${i}`, new Date(Date.UTC(2032, 0, 1, 0, i)).toISOString()],
      );
    }
    const q = { from: '2032-01-01 00:00', to: '2032-01-01 23:59', max_display_count: 10 };
    const p1 = await result({ ...q, page: 1 });
    expect(p1).toMatchObject({ count: 25, page_count: 3, page: 1 });
    expect(p1.list[0]?.details).toBe('paging 24');
    const p3 = await result({ ...q, page: 3 });
    expect(p3.list.map((x) => x.details)).toEqual([
      'paging 4',
      'paging 3',
      'paging 2',
      'paging 1',
      'paging 0',
    ]);
  });
});

describe('logs/search bad input → 400 envelope', () => {
  it.each([
    [{ from: '2031-05-01' }, undefined],
    [{ from: '2031-02-30 10:00' }, 'from'],
    [{ to: '2031-05-01 25:00' }, 'to'],
    [{ from: '2031-05-02 00:00', to: '2031-05-01 00:00' }, 'to'],
    [{ source: 'nope' }, undefined],
    [{ actor: 9 }, undefined],
    [{ level: 'fatal' }, undefined],
    [{ max_display_count: 5 }, undefined],
    [{ max_display_count: 201 }, undefined],
    [{ page: 0 }, undefined],
  ])('%j', async (query, field) => {
    const res = await search(admin, query);
    expect(res.statusCode).toBe(400);
    const body = envelope<{ field: string } | null>(res);
    expect(body.status).toBe(400);
    if (field) expect(body.result?.field).toBe(field);
  });
});
