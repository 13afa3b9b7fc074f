import { spawn } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { AccountImportResult, AccountListResult } from '../../contract/accounts';
import { runAdmin, type AdminIo } from '../src/cli/admin';
import { build, envelope, injectAs, loginAs, loginAsActor, type TestServer } from './helper';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');

interface Captured {
  io: AdminIo;
  out: string[];
  err: string[];
}

function capture(cwd: string, stdin = ''): Captured {
  const out: string[] = [];
  const err: string[] = [];
  return {
    out,
    err,
    io: {
      out: (l) => out.push(l),
      err: (l) => err.push(l),
      readStdin: async () => stdin,
      cwd,
      now: () => new Date('2026-04-01T09:00:00Z'),
    },
  };
}

async function loginStatus(s: TestServer, loginId: string, password: string): Promise<number> {
  const res = await s.app.inject({
    method: 'POST',
    url: '/api/v1/login.php',
    payload: { login_id: loginId, password },
  });
  return res.statusCode;
}

function generatedPassword(lines: string[]): string {
  const line = lines.find((l) => l.startsWith('Password (shown once): '));
  if (!line) throw new Error(`no generated password in: ${lines.join(' | ')}`);
  return line.slice('Password (shown once): '.length);
}

let s: TestServer;
let dir: string;

describe('npm run admin (in process, on the test database)', () => {
  beforeEach(async () => {
    s = await build({ demo: false });
    dir = await mkdtemp(path.join(os.tmpdir(), 'accounts-'));
  });
  afterEach(async () => {
    await s.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('creates a group and accounts; a generated password is printed once and logs in', async () => {
    const g = capture(dir);
    expect(await runAdmin(['create-group', '--code', 'UNIV26', '--name', '東京大学 2026'], s.db, g.io)).toBe(
      0,
    );

    const m = capture(dir);
    const code = await runAdmin(
      ['create-user', '--actor', '3', '--login-id', 'mgr-univ', '--name', '管理 花子', '--group', 'UNIV26'],
      s.db,
      m.io,
    );
    expect(code, m.err.join('\n')).toBe(0);
    const password = generatedPassword(m.out);
    expect(password).toMatch(/^[A-Za-z2-9]{16}$/);
    const token = await loginAs(s.app, 'mgr-univ', password);
    expect(token).toBeTruthy();

    // A password from standard input (one line; the newline is not part of it).
    const t = capture(dir, 'correct horse battery\n');
    expect(
      await runAdmin(
        ['create-user', '--actor', '4', '--login-id', 'admin1', '--name', 'Admin', '--password-stdin'],
        s.db,
        t.io,
      ),
    ).toBe(0);
    expect(t.out.join('\n')).not.toContain('Password (shown once)');
    expect(await loginStatus(s, 'admin1', 'correct horse battery')).toBe(200);
  });

  it('binds roles to groups as the spec says: a test manager needs one group, a checker none', async () => {
    await runAdmin(['create-group', '--code', 'G1', '--name', 'G1'], s.db, capture(dir).io);
    const noGroup = capture(dir);
    expect(
      await runAdmin(['create-user', '--actor', '3', '--login-id', 'm1', '--name', 'M'], s.db, noGroup.io),
    ).toBe(1);
    expect(noGroup.err.join()).toMatch(/group_code is required/);
    const checker = capture(dir);
    expect(
      await runAdmin(
        ['create-user', '--actor', '2', '--login-id', 'c1', '--name', 'C', '--group', 'G1'],
        s.db,
        checker.io,
      ),
    ).toBe(1);
    expect(checker.err.join()).toMatch(/not bound to a group/);
    const unknown = capture(dir);
    expect(
      await runAdmin(
        ['create-user', '--actor', '1', '--login-id', 't1', '--name', 'T', '--group', 'NOPE'],
        s.db,
        unknown.io,
      ),
    ).toBe(1);
    expect(unknown.err.join()).toMatch(/create it first/);
    // Nothing was created by the refused commands.
    const { rows } = await s.db.query(`SELECT 1 FROM users WHERE login_id IN ('m1', 'c1', 't1')`);
    expect(rows).toHaveLength(0);
  });

  it('imports a CSV with a BOM: good rows are created, generated passwords go to a new file once', async () => {
    await runAdmin(['create-group', '--code', 'EXAM', '--name', 'Exam group'], s.db, capture(dir).io);
    const csv =
      '\uFEFFlogin_id,name,actor,group_code,password\r\n' +
      'stu001,受験 太郎,1,EXAM,\r\n' +
      'stu002,"Doe, Jane",1,EXAM,given-password-1\r\n' +
      'chk001,監視 一郎,2,,\r\n' +
      'mgr001,管理 次郎,3,EXAM,\r\n';
    await writeFile(path.join(dir, 'term.csv'), csv);
    const c = capture(dir);
    expect(await runAdmin(['import-users', 'term.csv'], s.db, c.io), c.err.join('\n')).toBe(0);
    expect(c.out.join('\n')).toContain('Imported 4 rows: 4 created, 0 updated, 0 unchanged');
    const files = (await readdir(dir)).filter((f) => f.includes('.passwords-'));
    expect(files).toEqual(['term.passwords-20260401-090000.csv']);
    const written = await readFile(path.join(dir, files[0]!), 'utf8');
    const lines = written
      .replace(/^\uFEFF/, '')
      .trim()
      .split('\r\n');
    expect(lines[0]).toBe('login_id,password');
    // Generated only for the rows without a password; the given one is never written anywhere.
    expect(lines.slice(1).map((l) => l.split(',')[0])).toEqual(['stu001', 'chk001', 'mgr001']);
    expect(written).not.toContain('given-password-1');
    const stu001 = lines[1]!.split(',')[1]!;
    expect(await loginStatus(s, 'stu001', stu001)).toBe(200);
    expect(await loginStatus(s, 'stu002', 'given-password-1')).toBe(200);
    const { rows } = await s.db.query<{ name: string; code: string }>(
      `SELECT u.name, g.code FROM users u JOIN exam_groups g ON g.id = u.group_id WHERE login_id = 'stu002'`,
    );
    expect(rows[0]).toEqual({ name: 'Doe, Jane', code: 'EXAM' });
  });

  it('a file with bad rows: the dry run names every line and reason, the import writes nothing', async () => {
    await runAdmin(['create-group', '--code', 'EXAM', '--name', 'Exam'], s.db, capture(dir).io);
    const csv = [
      'login_id,name,actor,group_code,password', // 1
      'ok001,Good Row,1,EXAM,', // 2
      ',No Id,1,EXAM,', // 3
      'bad id,Spaces,1,EXAM,', // 4
      'ok002,,1,EXAM,', // 5
      'ok003,Actor Nine,9,EXAM,', // 6
      'ok004,Manager,3,,', // 7
      'ok005,Checker,2,EXAM,', // 8
      'ok006,Unknown Group,1,NOPE,', // 9
      'ok007,Short,1,EXAM,short', // 10
      'ok001,Again,1,EXAM,', // 11
      'tester01,Was Demo,1,EXAM', // 12 (too few fields)
    ].join('\n');
    await writeFile(path.join(dir, 'bad.csv'), csv);
    const dry = capture(dir);
    expect(await runAdmin(['import-users', 'bad.csv', '--dry-run'], s.db, dry.io)).toBe(1);
    const reported = dry.err.filter((l) => l.startsWith('line ')).map((l) => /^line (\d+)/.exec(l)![1]);
    expect(reported).toEqual(['3', '4', '5', '6', '7', '8', '9', '10', '11', '12']);
    expect(dry.err.join('\n')).toMatch(/line 6 \(ok003\): actor must be 1/);
    expect(dry.err.join('\n')).toMatch(/line 9 \(ok006\): No group has this group_code/);
    expect(dry.err.join('\n')).toMatch(/line 11 \(ok001\): This login_id appears on an earlier line/);

    const real = capture(dir);
    expect(await runAdmin(['import-users', 'bad.csv'], s.db, real.io)).toBe(1);
    expect(real.err.join('\n')).toContain('10 invalid rows: nothing was imported');
    const { rows } = await s.db.query(`SELECT 1 FROM users WHERE login_id LIKE 'ok0%'`);
    expect(rows).toHaveLength(0);
    expect((await readdir(dir)).filter((f) => f.includes('.passwords-'))).toEqual([]);

    // --skip-invalid imports the one good row and reports the others.
    const partial = capture(dir);
    expect(await runAdmin(['import-users', 'bad.csv', '--skip-invalid'], s.db, partial.io)).toBe(0);
    expect(partial.out.join('\n')).toContain('1 created');
    expect(partial.out.join('\n')).toContain('10 invalid rows skipped');
  });

  it('re-import is idempotent: names and groups change, passwords do not; a role is never changed', async () => {
    await runAdmin(['create-group', '--code', 'A', '--name', 'Group A'], s.db, capture(dir).io);
    await runAdmin(['create-group', '--code', 'B', '--name', 'Group B'], s.db, capture(dir).io);
    const header = 'login_id,name,actor,group_code,password\n';
    await writeFile(
      path.join(dir, 'one.csv'),
      header + 'p1,First Name,1,A,first-password\np2,Other,1,A,pass-word-2\n',
    );
    expect(await runAdmin(['import-users', 'one.csv'], s.db, capture(dir).io)).toBe(0);

    const again = capture(dir);
    expect(await runAdmin(['import-users', 'one.csv'], s.db, again.io)).toBe(0);
    expect(again.out.join('\n')).toContain('0 created, 0 updated, 2 unchanged');

    await writeFile(path.join(dir, 'two.csv'), header + 'p1,Renamed,1,B,another-password\np2,Other,1,A,\n');
    const changed = capture(dir);
    expect(await runAdmin(['import-users', 'two.csv'], s.db, changed.io)).toBe(0);
    expect(changed.out.join('\n')).toContain('0 created, 1 updated, 1 unchanged');
    const { rows } = await s.db.query<{ name: string; code: string }>(
      `SELECT u.name, g.code FROM users u JOIN exam_groups g ON g.id = u.group_id WHERE login_id = 'p1'`,
    );
    expect(rows[0]).toEqual({ name: 'Renamed', code: 'B' });
    expect(await loginStatus(s, 'p1', 'first-password')).toBe(200);
    expect(await loginStatus(s, 'p1', 'another-password')).toBe(401);

    await writeFile(path.join(dir, 'role.csv'), header + 'p1,Renamed,2,,\n');
    const role = capture(dir);
    expect(await runAdmin(['import-users', 'role.csv'], s.db, role.io)).toBe(1);
    expect(role.err.join('\n')).toMatch(
      /line 2 \(p1\): An account with this login_id exists with another actor/,
    );
  });

  it('reset-password: the old password and the open sessions stop working', async () => {
    await runAdmin(['create-group', '--code', 'A', '--name', 'A'], s.db, capture(dir).io);
    const c = capture(dir);
    await runAdmin(
      ['create-user', '--actor', '1', '--login-id', 'r1', '--name', 'R', '--group', 'A'],
      s.db,
      c.io,
    );
    const old = generatedPassword(c.out);
    const token = await loginAs(s.app, 'r1', old);
    const r = capture(dir);
    expect(await runAdmin(['reset-password', '--login-id', 'r1'], s.db, r.io)).toBe(0);
    const fresh = generatedPassword(r.out);
    expect(fresh).not.toBe(old);
    expect(await loginStatus(s, 'r1', old)).toBe(401);
    expect(await loginStatus(s, 'r1', fresh)).toBe(200);
    const res = await injectAs(s.app, token, { method: 'GET', url: '/api/v1/tester/detail.php' });
    expect(res.statusCode).toBe(401);
    const missing = capture(dir);
    expect(await runAdmin(['reset-password', '--login-id', 'nobody'], s.db, missing.io)).toBe(1);
    expect(missing.err.join()).toMatch(/No account has login_id nobody/);
  });

  it('disable-user: login is refused and the session ends; enable-user lets it in again', async () => {
    await runAdmin(['create-group', '--code', 'A', '--name', 'A'], s.db, capture(dir).io);
    await runAdmin(
      ['create-user', '--actor', '1', '--login-id', 'd1', '--name', 'D', '--group', 'A', '--password-stdin'],
      s.db,
      capture(dir, 'disable-me-please').io,
    );
    const token = await loginAs(s.app, 'd1', 'disable-me-please');
    expect(await runAdmin(['disable-user', '--login-id', 'd1'], s.db, capture(dir).io)).toBe(0);
    expect(await loginStatus(s, 'd1', 'disable-me-please')).toBe(401);
    const res = await injectAs(s.app, token, { method: 'GET', url: '/api/v1/tester/detail.php' });
    expect(res.statusCode).toBe(401);
    expect(envelope(res)).toMatchObject({
      code: 'session_ended',
      message: 'The session was ended (account disabled).',
    });
    expect(await runAdmin(['enable-user', '--login-id', 'd1'], s.db, capture(dir).io)).toBe(0);
    expect(await loginStatus(s, 'd1', 'disable-me-please')).toBe(200);
  });

  it('the last enabled system manager cannot be disabled', async () => {
    await runAdmin(
      ['create-user', '--actor', '4', '--login-id', 'only-admin', '--name', 'A'],
      s.db,
      capture(dir).io,
    );
    // The test database holds the demo system manager too: with it disabled, only-admin is the last one.
    expect(await runAdmin(['disable-user', '--login-id', 'sysadmin01'], s.db, capture(dir).io)).toBe(0);
    const c = capture(dir);
    expect(await runAdmin(['disable-user', '--login-id', 'only-admin'], s.db, c.io)).toBe(1);
    expect(c.err.join()).toMatch(/last enabled system manager/);
  });

  it('reports UTF-8 problems and usage mistakes clearly', async () => {
    await writeFile(
      path.join(dir, 'sjis.csv'),
      Buffer.from([0x6c, 0x6f, 0x67, 0x0a, 0x83, 0x65, 0x83, 0x58]),
    );
    const enc = capture(dir);
    expect(await runAdmin(['import-users', 'sjis.csv'], s.db, enc.io)).toBe(1);
    expect(enc.err.join()).toMatch(/not UTF-8/);
    const usage = capture(dir);
    expect(await runAdmin(['create-user', '--actor', '7'], s.db, usage.io)).toBe(2);
    expect(usage.err.join('\n')).toMatch(/--actor must be 1, 2, 3, 4 or 5[\s\S]*Usage: npm run admin/);
  });
});

describe('npm run admin (the real command, on its own PGlite data directory)', () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'admin-cli-'));
  });
  afterAll(async () => rm(dataDir, { recursive: true, force: true }));

  const run = (args: string[], stdin = '') =>
    new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
      const child = spawn(process.execPath, [path.join(root, 'scripts/admin.mjs'), ...args], {
        cwd: root,
        env: { ...process.env, DATA_DIR: dataDir, DEMO: '0', DATABASE_URL: '', INIT_CWD: dataDir },
      });
      let out = '';
      let err = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      child.stderr.on('data', (d: Buffer) => (err += d.toString()));
      child.stdin.end(stdin);
      child.on('exit', (code) => resolve({ code, out, err }));
    });

  it('migrates a fresh DATA_DIR, creates the first system manager, and refuses while the directory is in use', async () => {
    const g = await run(['create-group', '--code', 'ORG', '--name', 'Org']);
    expect(g.code, g.err).toBe(0);
    const u = await run(
      ['create-user', '--actor', '4', '--login-id', 'first-admin', '--name', 'First', '--password-stdin'],
      'first-admin-password\n',
    );
    expect(u.code, u.err).toBe(0);
    const list = await run(['list-users']);
    expect(list.out).toMatch(/^first-admin\tFirst\t4\t\t$/m);
    // A live process holding the directory (the server) keeps the CLI out.
    await writeFile(path.join(dataDir, '.lock'), String(process.pid));
    const busy = await run(['list-users']);
    expect(busy.code).toBe(1);
    expect(busy.err).toMatch(/in use by process/);
    await rm(path.join(dataDir, '.lock'));
  }, 60_000);
});

describe('Accounts API (system managers only)', () => {
  let admin: string;
  // One server for these tests (with the demo accounts): each changes only accounts the others do not read.
  beforeAll(async () => {
    s = await build();
    admin = await loginAsActor(s.app, 4);
  });
  afterAll(async () => {
    await s.close();
  });

  it('refuses every actor but the system manager', async () => {
    for (const actor of [1, 2, 3, 5] as const) {
      const token = await loginAsActor(s.app, actor);
      const res = await injectAs(s.app, token, { method: 'GET', url: '/api/v1/accounts/list.php' });
      expect(res.statusCode, `actor ${actor}`).toBe(403);
    }
    expect((await s.app.inject({ method: 'GET', url: '/api/v1/accounts/list.php' })).statusCode).toBe(401);
  });

  it('dry run previews errors with line numbers; the import creates; the list filters', async () => {
    const csv = 'login_id,name,actor,group_code\napi001,API One,1,DEMO\napi002,API Two,1,NOPE\n';
    const dry = await injectAs(s.app, admin, {
      method: 'POST',
      url: '/api/v1/accounts/import.php',
      payload: { csv, dry_run: true },
    });
    expect(dry.statusCode).toBe(200);
    const preview = envelope<AccountImportResult>(dry).result;
    expect(preview).toMatchObject({ applied: false, rows: 2, created: 1, passwords: [] });
    expect(preview.errors).toEqual([
      expect.objectContaining({ line: 3, login_id: 'api002', issue: 'group_unknown' }),
    ]);
    const refused = await injectAs(s.app, admin, {
      method: 'POST',
      url: '/api/v1/accounts/import.php',
      payload: { csv },
    });
    expect(refused.statusCode).toBe(400);
    expect(envelope(refused).message).toBe('1 invalid rows: nothing was imported.');
    const good = await injectAs(s.app, admin, {
      method: 'POST',
      url: '/api/v1/accounts/import.php',
      payload: { csv, skip_invalid: true },
    });
    const done = envelope<AccountImportResult>(good).result;
    expect(done).toMatchObject({ applied: true, created: 1, skipped: 1 });
    expect(done.passwords.map((p) => p.login_id)).toEqual(['api001']);
    expect(await loginStatus(s, 'api001', done.passwords[0]!.password)).toBe(200);

    const list = await injectAs(s.app, admin, {
      method: 'GET',
      url: '/api/v1/accounts/list.php?actor=1&group_code=DEMO&q=api',
    });
    const result = envelope<AccountListResult>(list).result;
    expect(result.list.map((r) => r.login_id)).toEqual(['api001']);
    expect(result.list[0]).toMatchObject({ name: 'API One', group_code: 'DEMO', disabled: false });
  });

  it('disable, enable, reset and create-group answer in the envelope', async () => {
    const dis = await injectAs(s.app, admin, {
      method: 'POST',
      url: '/api/v1/accounts/set_disabled.php',
      payload: { login_id: 'tester02', disabled: true },
    });
    expect(dis.statusCode).toBe(200);
    expect(await loginStatus(s, 'tester02', 'demo-pass')).toBe(401);
    const self = await injectAs(s.app, admin, {
      method: 'POST',
      url: '/api/v1/accounts/set_disabled.php',
      payload: { login_id: 'sysadmin01', disabled: true },
    });
    expect(self.statusCode).toBe(409);
    const reset = await injectAs(s.app, admin, {
      method: 'POST',
      url: '/api/v1/accounts/reset_password.php',
      payload: { login_id: 'tester03' },
    });
    const pw = envelope<{ password: string }>(reset).result.password;
    expect(await loginStatus(s, 'tester03', pw)).toBe(200);
    const group = await injectAs(s.app, admin, {
      method: 'POST',
      url: '/api/v1/accounts/create_group.php',
      payload: { code: 'NEW-1', name: 'New group' },
    });
    expect(envelope(group).result).toMatchObject({ code: 'NEW-1', name: 'New group', user_count: 0 });
    const dup = await injectAs(s.app, admin, {
      method: 'POST',
      url: '/api/v1/accounts/create_group.php',
      payload: { code: 'NEW-1', name: 'Again' },
    });
    expect(dup.statusCode).toBe(409);
    const bad = await injectAs(s.app, admin, {
      method: 'POST',
      url: '/api/v1/accounts/create_group.php',
      payload: { code: 'has space', name: 'X' },
    });
    expect(bad.statusCode).toBe(400);
  });
});
