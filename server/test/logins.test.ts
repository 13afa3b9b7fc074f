import { build, envelope, injectAs, loginAs, loginAsActor, type TestServer } from './helper';

interface LoginRow {
  exam_user_id: number;
  login_id: string;
  actor: number;
  group: string | null;
  updated_at: string;
}
interface LoginsResult {
  count: number;
  page_count: number;
  page: number;
  list: LoginRow[];
}

let s: TestServer;
let admin: string;
let manager: string;

beforeAll(async () => {
  s = await build();
  admin = await loginAsActor(s.app, 4);
  manager = await loginAsActor(s.app, 3);
  await loginAsActor(s.app, 2);
  for (let i = 1; i <= 12; i++) await loginAs(s.app, `tester${String(i).padStart(2, '0')}`);
  // A second login of tester01 counts once (one live session per sitting: the first one ends).
  await loginAs(s.app, 'tester01');
});
afterAll(async () => s.close());

const list = async (query: string) => {
  const res = await injectAs(s.app, admin, { method: 'GET', url: `/api/v1/logins.php${query}` });
  expect(res.statusCode, res.body).toBe(200);
  return envelope<LoginsResult>(res).result;
};

describe('GET /logins.php (spec §3 "Logins list")', () => {
  it('lists logged-in testers by default, 50 a page, newest activity first', async () => {
    const r = await list('');
    expect(r.count).toBe(12);
    expect(r.page).toBe(1);
    expect(r.page_count).toBe(1);
    expect(r.list.every((u) => u.actor === 1)).toBe(true);
    expect(r.list[0]).toMatchObject({ group: 'Demo University' });
    expect(Object.keys(r.list[0]!).sort()).toEqual(
      [
        'actor',
        'exam_user_id',
        'ex_login_id',
        'group',
        'group_code',
        'group_id',
        'is_mc_startup',
        'kicked',
        'login_id',
        'rejected',
        'status',
        'target',
        'updated_at',
      ].sort(),
    );
    expect(r.list[0]!.updated_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\+09:00$/);
    // Default sort: updated at (9), descending: tester01 logged in again last.
    expect(r.list[0]!.login_id).toBe('tester01');
  });

  it('filters by actor kind', async () => {
    const others = await list('?actor_kind=2');
    expect(others.list.map((u) => u.login_id).sort()).toEqual(['checker01', 'manager01', 'sysadmin01']);
    const all = await list('?actor_kind=-1');
    expect(all.count).toBe(15);
  });

  it('sorts by login id both ways and pages', async () => {
    const asc = await list('?sort_key=1&sort_order=1&max_display_count=10');
    expect(asc.page_count).toBe(2);
    expect(asc.list.map((u) => u.login_id)).toEqual(
      [...Array(10)].map((_, i) => `tester${String(i + 1).padStart(2, '0')}`),
    );
    const p2 = await list('?sort_key=1&sort_order=1&max_display_count=10&page=2');
    expect(p2.list.map((u) => u.login_id)).toEqual(['tester11', 'tester12']);
    const desc = await list('?sort_key=1&sort_order=0');
    expect(desc.list[0]!.login_id).toBe('tester12');
    const byActor = await list('?actor_kind=-1&sort_key=3&sort_order=0');
    expect(byActor.list[0]!.actor).toBe(4);
  });

  it('rejects bad parameters with 400', async () => {
    for (const q of ['?actor_kind=3', '?sort_key=10', '?sort_order=2', '?page=0', '?page=x']) {
      const res = await injectAs(s.app, admin, { method: 'GET', url: `/api/v1/logins.php${q}` });
      expect(res.statusCode, q).toBe(400);
    }
  });
});

describe('POST /logins/force_logout.php', () => {
  it('revokes every session of the user; its next call is 401; audited', async () => {
    const before = await list('?actor_kind=2');
    const target = before.list.find((u) => u.login_id === 'manager01')!;
    expect((await injectAs(s.app, manager, { method: 'GET', url: '/api/v1/testers.php' })).statusCode).toBe(
      200,
    );
    const res = await injectAs(s.app, admin, {
      method: 'POST',
      url: '/api/v1/logins/force_logout.php',
      payload: { user_id: target.exam_user_id },
    });
    expect(res.statusCode).toBe(200);
    expect(envelope(res).result).toEqual({ user_id: target.exam_user_id, revoked: 1 });
    expect((await injectAs(s.app, manager, { method: 'GET', url: '/api/v1/testers.php' })).statusCode).toBe(
      401,
    );
    const after = await list('?actor_kind=2');
    expect(after.list.map((u) => u.login_id)).not.toContain('manager01');
    const audit = await s.db.query(
      `SELECT 1 FROM logs WHERE source = 'audit' AND type = 'session.force_logout' AND location = $1`,
      [`user:${target.exam_user_id}`],
    );
    expect(audit.rows).toHaveLength(1);
  });

  it("revokes a tester's live session (a second login already ended the first one)", async () => {
    const t = (await list('')).list.find((u) => u.login_id === 'tester01')!;
    const res = await injectAs(s.app, admin, {
      method: 'POST',
      url: '/api/v1/logins/force_logout.php',
      payload: { user_id: String(t.exam_user_id) },
    });
    expect(envelope(res).result).toEqual({ user_id: t.exam_user_id, revoked: 1 });
    expect((await list('')).count).toBe(11);
  });

  it('refuses the caller itself (409), an unknown user (404) and junk (400)', async () => {
    const me = (await list('?actor_kind=2')).list.find((u) => u.login_id === 'sysadmin01')!;
    const self = await injectAs(s.app, admin, {
      method: 'POST',
      url: '/api/v1/logins/force_logout.php',
      payload: { user_id: me.exam_user_id },
    });
    expect(self.statusCode).toBe(409);
    const unknown = await injectAs(s.app, admin, {
      method: 'POST',
      url: '/api/v1/logins/force_logout.php',
      payload: { user_id: 999999 },
    });
    expect(unknown.statusCode).toBe(404);
    for (const payload of [{}, { user_id: 'abc' }, { user_id: 0 }]) {
      const res = await injectAs(s.app, admin, {
        method: 'POST',
        url: '/api/v1/logins/force_logout.php',
        payload,
      });
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
    }
  });
});

describe('permissions', () => {
  it.each([1, 2, 3] as const)('actor %i gets 403', async (actor) => {
    const token = await loginAsActor(s.app, actor);
    expect((await injectAs(s.app, token, { method: 'GET', url: '/api/v1/logins.php' })).statusCode).toBe(403);
    expect(
      (
        await injectAs(s.app, token, {
          method: 'POST',
          url: '/api/v1/logins/force_logout.php',
          payload: { user_id: 1 },
        })
      ).statusCode,
    ).toBe(403);
  });
});
