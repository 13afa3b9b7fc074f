import { build, envelope, injectAs, loginAsActor, type TestServer } from './helper';

let s: TestServer;
let admin: string;

beforeAll(async () => {
  s = await build();
  admin = await loginAsActor(s.app, 4);
});
afterAll(async () => s.close());

const insert = (token: string, payload: Record<string, unknown>, remoteAddress?: string) =>
  injectAs(s.app, token, {
    method: 'POST',
    url: '/api/v1/access_limit/insert_access_limit.php',
    payload,
    ...(remoteAddress ? { remoteAddress } : {}),
  });
const remove = (token: string, payload: Record<string, unknown>) =>
  injectAs(s.app, token, { method: 'POST', url: '/api/v1/access_limit/delete_access_limit.php', payload });

describe('insert_access_limit validation (spec §5)', () => {
  it.each([
    [{ ip: '1.2.3', actor: 3 }, 'ip', 'IPアドレスはIPv4の形式でなければなりません。'],
    [{ ip: '::1', actor: 3 }, 'ip', 'IPアドレスはIPv4の形式でなければなりません。'],
    [{ ip: '10.0.0.0/33', actor: 3 }, 'ip', 'IPアドレスはIPv4の形式でなければなりません。'],
    [
      { ip: '10.0.0.1', domain: 'example.com', actor: 3 },
      'domain',
      'IPアドレスとドメインのいずれかを入力してください。',
    ],
    [{ ip: '', domain: '', actor: 3 }, 'ip', 'IPアドレスとドメインのいずれかを入力してください。'],
    [{ actor: 3 }, 'ip', 'IPアドレスとドメインのいずれかを入力してください。'],
    [{ domain: 'not a host', actor: 3 }, 'domain', undefined],
    [{ domain: 'localhost', actor: 3 }, 'domain', undefined],
    [{ ip: '10.0.0.1', actor: 1 }, 'actor', undefined],
    [{ ip: '10.0.0.1', actor: 6 }, 'actor', undefined],
    [{ ip: '10.0.0.1', actor: 3, server: 'auth.example.com/' }, 'server', undefined],
    [{ ip: '10.0.0.1', actor: 3, server: 'https://auth.example.com' }, 'server', undefined],
  ])('%j → 400 on %s', async (payload, field, message) => {
    const res = await insert(admin, payload);
    expect(res.statusCode).toBe(400);
    const body = envelope<{ field: string }>(res);
    // The spec §5 rules have their own stable codes; other field errors are 'validation'.
    const code = message?.startsWith('IPアドレスはIPv4')
      ? 'invalid_ipv4'
      : message?.startsWith('IPアドレスとドメイン')
        ? 'ip_or_domain_required'
        : 'validation';
    expect(body.code).toBe(code);
    expect(body.result.field).toBe(field);
    if (message) expect(body.message).toBe(message);
  });

  it('answers a wrong type with a 400 envelope', async () => {
    const res = await insert(admin, { ip: '10.0.0.1', actor: 'x' });
    expect(res.statusCode).toBe(400);
    expect(envelope(res).status).toBe(400);
  });
});

describe('delete_access_limit validation', () => {
  it.each([{}, { ids: [] }])('%j → 400 一つ以上の要素を選択してください。', async (payload) => {
    const res = await remove(admin, payload);
    expect(res.statusCode).toBe(400);
    expect(envelope(res).message).toBe('一つ以上の要素を選択してください。');
    expect(envelope<{ field: string }>(res).result.field).toBe('ids');
  });
  it('rejects a non-numeric id', async () => {
    expect((await remove(admin, { ids: ['abc'] })).statusCode).toBe(400);
  });
});

describe('a new limit takes effect on the next call (the auth plugin enforces it)', () => {
  it('locks a test manager out from other addresses and lets the listed one in; delete lifts it', async () => {
    const manager = await loginAsActor(s.app, 3);
    expect((await injectAs(s.app, manager, { method: 'GET', url: '/api/v1/testers.php' })).statusCode).toBe(
      200,
    );

    const res = await insert(admin, { server: '', ip: '10.9.9.9', domain: '', actor: '3' });
    expect(res.statusCode).toBe(200);
    const row = envelope<{
      id: number;
      ip: string;
      domain: string | null;
      actor: number;
      server: string;
      created_at: string;
    }>(res).result;
    expect(row).toMatchObject({ ip: '10.9.9.9', domain: null, actor: 3, server: '' });
    expect(row.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\+09:00$/);

    const blocked = await injectAs(s.app, manager, { method: 'GET', url: '/api/v1/testers.php' });
    expect(blocked.statusCode).toBe(403);
    expect(envelope(blocked).code).toBe('ip_not_allowed');
    const fromListed = await injectAs(s.app, manager, {
      method: 'GET',
      url: '/api/v1/testers.php',
      remoteAddress: '10.9.9.9',
    });
    expect(fromListed.statusCode).toBe(200);

    const list = envelope<{ list: { id: number }[] }>(
      await injectAs(s.app, admin, { method: 'GET', url: '/api/v1/access_limit/select_access_limit.php' }),
    ).result.list;
    expect(list.map((r) => r.id)).toContain(row.id);

    const del = await remove(admin, { ids: [row.id] });
    expect(envelope(del).result).toEqual({ deleted: 1 });
    expect((await injectAs(s.app, manager, { method: 'GET', url: '/api/v1/testers.php' })).statusCode).toBe(
      200,
    );
  });

  it('accepts a CIDR block and a domain', async () => {
    const cidr = await insert(admin, { ip: '10.0.0.0/8', actor: 2 });
    expect(cidr.statusCode).toBe(200);
    const dom = await insert(admin, { domain: 'Proctor.Example.COM', actor: 2 });
    expect(envelope<{ domain: string }>(dom).result.domain).toBe('proctor.example.com');
    await remove(admin, {
      ids: [envelope<{ id: number }>(cidr).result.id, envelope<{ id: number }>(dom).result.id],
    });
  });
});

describe('self-lockout guard', () => {
  it('refuses a rule for the own actor that the caller does not match (409), accepts one it matches', async () => {
    const refused = await insert(admin, { ip: '10.1.1.1', actor: 4 });
    expect(refused.statusCode).toBe(409);
    expect(envelope(refused).code).toBe('access_limit_self_lockout');

    const own = await insert(admin, { ip: '127.0.0.1', actor: 4 });
    expect(own.statusCode).toBe(200);
    // With the own address listed, another address may be added.
    const other = await insert(admin, { ip: '10.1.1.1', actor: 4 });
    expect(other.statusCode).toBe(200);
    expect(
      (await injectAs(s.app, admin, { method: 'GET', url: '/api/v1/access_limit/select_access_limit.php' }))
        .statusCode,
    ).toBe(200);

    // Deleting the rule that lets the caller in while another stays would lock it out.
    const ownId = envelope<{ id: number }>(own).result.id;
    const otherId = envelope<{ id: number }>(other).result.id;
    expect((await remove(admin, { ids: [ownId] })).statusCode).toBe(409);
    expect(envelope(await remove(admin, { ids: [ownId, otherId] })).result).toEqual({ deleted: 2 });
  });

  it('does not guard rules for other actors', async () => {
    const res = await insert(admin, { ip: '10.1.1.1', actor: 5 });
    expect(res.statusCode).toBe(200);
    // The supervisor is locked out: either its login is refused or its next call is.
    const login = await s.app.inject({
      method: 'POST',
      url: '/api/v1/login.php',
      payload: { login_id: 'supervisor01', password: 'demo-pass' },
    });
    if (login.statusCode === 200) {
      const token = envelope<{ access_token: string }>(login).result.access_token;
      const r = await injectAs(s.app, token, {
        method: 'GET',
        url: '/api/v1/access_limit/select_access_limit.php',
      });
      expect(r.statusCode).toBe(403);
    } else {
      expect(login.statusCode).toBe(403);
    }
    await remove(admin, { ids: [envelope<{ id: number }>(res).result.id] });
  });

  it('audits inserts and deletes', async () => {
    const { rows } = await s.db.query<{ type: string }>(
      `SELECT type FROM logs WHERE source = 'audit' AND type LIKE 'settings.access_limit.%'`,
    );
    expect(rows.some((r) => r.type === 'settings.access_limit.insert')).toBe(true);
    expect(rows.some((r) => r.type === 'settings.access_limit.delete')).toBe(true);
  });
});

describe('permissions', () => {
  it.each([1, 2, 3] as const)('actor %i gets 403', async (actor) => {
    const token = await loginAsActor(s.app, actor);
    expect(
      (await injectAs(s.app, token, { method: 'GET', url: '/api/v1/access_limit/select_access_limit.php' }))
        .statusCode,
    ).toBe(403);
    expect((await insert(token, { ip: '10.0.0.1', actor: 2 })).statusCode).toBe(403);
    expect((await remove(token, { ids: [1] })).statusCode).toBe(403);
  });
});
