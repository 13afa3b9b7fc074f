// A throw-away PostgreSQL cluster for the scale layer, the multi-instance tests and the benchmark: Debian's
// PostgreSQL binaries (installed by ensurePostgres when missing, as scripts/lib.mjs does for Chromium), a
// cluster in a temporary directory listening only on a unix socket in that directory (no TCP port, so nothing
// collides with other clusters on the machine), removed by stop(). initdb refuses to run as root: as root the
// cluster runs as the `postgres` system user (runuser), otherwise as the current user.
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ensureDebianPackages } from './lib.mjs';

/** The newest Debian PostgreSQL bin directory, or null. */
export function postgresBinDir() {
  const base = '/usr/lib/postgresql';
  if (!existsSync(base)) return null;
  const versions = readdirSync(base)
    .filter((v) => existsSync(path.join(base, v, 'bin', 'initdb')))
    .sort((x, y) => Number(y) - Number(x));
  return versions.length ? path.join(base, versions[0], 'bin') : null;
}

/** Installs Debian's postgresql when no server binaries are found; returns the bin directory or null. */
export function ensurePostgres() {
  if (!postgresBinDir()) ensureDebianPackages({ '/usr/lib/postgresql': 'postgresql' });
  const bin = postgresBinDir();
  if (!bin) console.error('PostgreSQL server binaries not found: apt-get install -y postgresql');
  return bin;
}

const isRoot = () => typeof process.getuid === 'function' && process.getuid() === 0;

function uidOf(user) {
  const r = spawnSync('id', ['-u', user], { encoding: 'utf8' });
  return r.status === 0 ? Number(r.stdout.trim()) : null;
}

/** Runs a PostgreSQL binary as the cluster's user. */
function asOwner(cmd, args, opts = {}) {
  if (!isRoot()) return { cmd, args, opts };
  return { cmd: 'runuser', args: ['-u', 'postgres', '--', cmd, ...args], opts };
}

/**
 * Starts a cluster; resolves to { url, dir, pid, stop() }. `url` names the `postgres` database as the
 * `postgres` superuser over the unix socket (trust authentication: the socket directory is private).
 * `settings` are extra postgresql.conf lines (the defaults favour speed: the cluster is thrown away).
 */
export async function startPostgres({ settings = {}, log = false } = {}) {
  const bin = ensurePostgres();
  if (!bin) throw new Error('no PostgreSQL');
  if (isRoot() && uidOf('postgres') === null)
    throw new Error('running as root needs the postgres system user');
  const dir = mkdtempSync(path.join(os.tmpdir(), 'proctor-pg-'));
  const data = path.join(dir, 'data');
  if (isRoot()) {
    const uid = uidOf('postgres');
    const gid = Number(spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).stdout.trim());
    chownSync(dir, uid, gid);
  }
  chmodSync(dir, 0o700);
  const init = asOwner(path.join(bin, 'initdb'), [
    '-D',
    data,
    '-U',
    'postgres',
    '--auth=trust',
    '-E',
    'UTF8',
    '--locale=C.UTF-8',
    '--no-sync',
  ]);
  const r = spawnSync(init.cmd, init.args, { encoding: 'utf8' });
  if (r.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`initdb failed: ${r.stderr || r.stdout}`);
  }
  const conf = {
    listen_addresses: '',
    unix_socket_directories: dir,
    port: 5432,
    max_connections: 200,
    fsync: 'off',
    synchronous_commit: 'off',
    full_page_writes: 'off',
    ...settings,
  };
  const opts = Object.entries(conf).flatMap(([k, v]) => ['-c', `${k}=${v}`]);
  const start = asOwner(path.join(bin, 'postgres'), ['-D', data, ...opts]);
  const child = spawn(start.cmd, start.args, {
    stdio: ['ignore', log ? 'inherit' : 'ignore', log ? 'inherit' : 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (c) => (stderr = (stderr + c).slice(-4000)));
  /** The postmaster's own pid (runuser, as root, does not pass every signal on). */
  const postmasterPid = () => {
    try {
      return Number(readFileSync(path.join(data, 'postmaster.pid'), 'utf8').split('\n')[0]) || null;
    } catch {
      return null;
    }
  };
  const alive = (pid) => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    const pid = postmasterPid();
    // SIGINT: fast shutdown (sessions are ended); SIGKILL after 10 s.
    if (pid && alive(pid)) process.kill(pid, 'SIGINT');
    else if (child.exitCode === null) child.kill('SIGINT');
    const deadline = Date.now() + 10_000;
    while ((pid && alive(pid)) || child.exitCode === null) {
      if (Date.now() > deadline) {
        if (pid && alive(pid)) process.kill(pid, 'SIGKILL');
        if (child.exitCode === null) child.kill('SIGKILL');
        break;
      }
      await new Promise((res) => setTimeout(res, 100));
    }
    rmSync(dir, { recursive: true, force: true });
  };
  const url = `postgres://postgres@localhost/postgres?host=${encodeURIComponent(dir)}&port=${conf.port}`;
  const ready = path.join(bin, 'pg_isready');
  const deadline = Date.now() + 30_000;
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`postgres exited: ${stderr}`);
      if (spawnSync(ready, ['-h', dir, '-p', String(conf.port), '-q']).status === 0) break;
      if (Date.now() > deadline) throw new Error(`postgres did not become ready: ${stderr}`);
      await new Promise((res) => setTimeout(res, 100));
    }
  } catch (err) {
    await stop();
    throw err;
  }
  return { url, dir, pid: child.pid, stop };
}
