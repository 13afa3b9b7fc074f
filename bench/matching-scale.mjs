// Matching-poll benchmark on PostgreSQL, one instance and two. The examinee's matching poll
// (POST /api/v1/matching.php every matchingTimeout seconds per examinee) is the hottest call: 10,000 examinees
// polling every 5 s are 2,000 req/s. Set-up as `npm run standins` deployments run: a throw-away PostgreSQL
// cluster (scripts/lib-postgres.mjs), the stand-ins service, instances A and B on that database pointed at it,
// BENCH_EXAMINEES examinees (the demo's plus copies of tester01) logged in, each polling with its own token and
// the body the SPA sends while it waits for a checker. Load: BENCH_CONNECTIONS keep-alive connections from
// worker threads for BENCH_SECONDS per scenario, each connection polling as one examinee after another
// (round-robin over the examinees), spread over the instances of the scenario (client-side round-robin, as
// a balancer would); a bare Fastify JSON route (fastify 5, logger off) runs in the same run as the baseline.
// Prints req/s, p50/p99 and errors per scenario, and each as a ratio to the bare route. Goal:
// ≥ 5,000 req/s at p99 ≤ 50 ms on two instances. A missed goal is a figure, never a failure.
// Everything shares this machine's cores (the load generator too), so absolute figures are lower bounds.
// Usage: node bench/matching-scale.mjs   (BENCH_SECONDS, BENCH_CONNECTIONS, BENCH_EXAMINEES, BENCH_THREADS)
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, openSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import pg from 'pg';
import { startPostgres } from '../scripts/lib-postgres.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SECONDS = Number(process.env.BENCH_SECONDS ?? 15);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 64);
const EXAMINEES = Number(process.env.BENCH_EXAMINEES ?? 400);
const THREADS = Number(process.env.BENCH_THREADS ?? 2);
const GOAL_RPS = 5000;
const GOAL_P99 = 50;

// ---------------------------------------------------------------- load worker
if (!isMainThread) {
  const { targets, connections, seconds } = workerData;
  const lat = [];
  let errors = 0;
  let done = 0;
  const deadline = Date.now() + seconds * 1000;
  const agents = new Map();
  const agentOf = (origin) => {
    let a = agents.get(origin);
    if (!a) agents.set(origin, (a = new http.Agent({ keepAlive: true, maxSockets: connections })));
    return a;
  };
  const one = (t) =>
    new Promise((resolve) => {
      const u = new URL(t.url);
      const t0 = process.hrtime.bigint();
      const req = http.request(
        {
          host: u.hostname,
          port: u.port,
          path: u.pathname,
          method: t.method,
          agent: agentOf(u.origin),
          headers: {
            'content-type': 'application/json',
            ...(t.token ? { authorization: `Bearer ${t.token}` } : {}),
          },
        },
        (res) => {
          res.resume();
          res.on('end', () => {
            if (res.statusCode === 200) lat.push(Number(process.hrtime.bigint() - t0) / 1e6);
            else errors++;
            resolve();
          });
        },
      );
      req.on('error', () => {
        errors++;
        resolve();
      });
      req.end(t.body ?? undefined);
    });
  const loop = async (c) => {
    let i = c;
    while (Date.now() < deadline) {
      await one(targets[i % targets.length]);
      i += connections;
      done++;
    }
  };
  await Promise.all(Array.from({ length: connections }, (_, c) => loop(c)));
  for (const a of agents.values()) a.destroy();
  parentPort.postMessage({ lat, errors, done });
  process.exit(0);
}

// ---------------------------------------------------------------- main
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const freePort = () =>
  new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

async function waitHttp(url, timeoutMs = 90_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not yet
    }
    if (Date.now() > deadline) throw new Error(`${url} did not answer`);
    await sleep(250);
  }
}

/** CPU seconds (user + system) used so far by the process trees rooted at `pids` (Linux /proc). */
function treeCpu(pids) {
  const procs = new Map();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      procs.set(Number(d), { ppid: Number(f[1]), cpu: (Number(f[11]) + Number(f[12])) / 100 });
    } catch {
      // gone
    }
  }
  const roots = new Set(pids);
  let total = 0;
  for (const [pid, p] of procs) {
    for (let q = pid, depth = 0; q && depth < 20; q = procs.get(q)?.ppid ?? 0, depth++) {
      if (roots.has(q)) {
        total += p.cpu;
        break;
      }
    }
  }
  return total;
}

/** Runs the load against `targets` (each {url, method, body?, token?}) with THREADS worker threads. */
async function load(targets) {
  const per = Math.max(1, Math.floor(CONNECTIONS / THREADS));
  const results = await Promise.all(
    Array.from(
      { length: THREADS },
      (_, k) =>
        new Promise((resolve, reject) => {
          const w = new Worker(fileURLToPath(import.meta.url), {
            workerData: {
              targets: targets.filter((_, i) => i % THREADS === k),
              connections: per,
              seconds: SECONDS,
            },
          });
          w.once('message', resolve);
          w.once('error', reject);
        }),
    ),
  );
  const lat = results.flatMap((r) => r.lat).sort((x, y) => x - y);
  const q = (p) => (lat.length ? lat[Math.min(lat.length - 1, Math.floor(p * lat.length))] : NaN);
  return {
    rps: lat.length / SECONDS,
    p50: q(0.5),
    p99: q(0.99),
    errors: results.reduce((n, r) => n + r.errors, 0),
  };
}

const work = mkdtempSync(path.join(os.tmpdir(), 'bench-matching-'));
const children = [];
const start = (name, args, env) => {
  const out = openSync(path.join(work, `${name}.log`), 'a');
  const c = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ['ignore', out, out] });
  children.push(c);
  return c;
};

let cluster;
try {
  console.log(
    `matching poll, PostgreSQL: ${EXAMINEES} examinees, ${CONNECTIONS} connections, ${SECONDS} s per scenario, ` +
      `${THREADS} load threads, ${os.availableParallelism()} cores shared by everything`,
  );
  cluster = await startPostgres();
  const [standinsPort, aPort, bPort, barePort] = await Promise.all([
    freePort(),
    freePort(),
    freePort(),
    freePort(),
  ]);
  const standins = `http://127.0.0.1:${standinsPort}`;
  const key = {
    id: `AKIABENCH${randomBytes(6).toString('hex').toUpperCase()}`,
    secret: randomBytes(30).toString('base64'),
  };
  const base = { PATH: process.env.PATH, HOME: process.env.HOME, ENV_FILE: '/dev/null' };
  start('standins', ['--import', 'tsx', 'server/src/standins/main.ts'], {
    ...base,
    STANDINS_PORT: String(standinsPort),
    STANDINS_DATA_DIR: path.join(work, 'standins'),
    STANDINS_ACCESS_KEY_ID: key.id,
    STANDINS_SECRET_ACCESS_KEY: key.secret,
    LOG_LEVEL: 'warn',
  });
  const instance = (name, p) =>
    start(`instance-${name}`, ['--import', 'tsx', 'server/src/server.ts'], {
      ...base,
      HOST: '127.0.0.1',
      PORT: String(p),
      DATA_DIR: path.join(work, name),
      DATABASE_URL: cluster.url,
      DATABASE_POOL_SIZE: '20',
      DEMO: '1',
      AI_WORKERS: '0',
      LOG_LEVEL: 'warn',
      LOGIN_PER_IP_PER_MINUTE: '1000000',
      KVS_ENDPOINT: `${standins}/kvs`,
      KVS_PUBLIC_ENDPOINT: `${standins}/kvs`,
      S3_ENDPOINT: `${standins}/s3`,
      S3_PUBLIC_ENDPOINT: `${standins}/s3`,
      S3_FORCE_PATH_STYLE: '1',
      STS_ENDPOINT: `${standins}/sts`,
      AWS_ROLE_ARN: 'arn:aws:iam::000000000000:role/proctor-browser',
      AWS_ACCESS_KEY_ID: key.id,
      AWS_SECRET_ACCESS_KEY: key.secret,
      AWS_EC2_METADATA_DISABLED: 'true',
    });
  const instA = instance('a', aPort);
  const instB = instance('b', bPort);
  start('bare', ['--input-type=module', '-e', BARE_SERVER(barePort)], base);
  await waitHttp(`${standins}/healthz`);
  await Promise.all([
    waitHttp(`http://127.0.0.1:${aPort}/readyz`),
    waitHttp(`http://127.0.0.1:${bPort}/readyz`),
    waitHttp(`http://127.0.0.1:${barePort}/`),
  ]);

  // Examinees: the demo's twelve plus copies of tester01 (same group and password), each logged in once.
  const db = new pg.Client({ connectionString: cluster.url });
  await db.connect();
  await db.query(
    `INSERT INTO users (login_id, password_hash, actor, name, group_id)
     SELECT 'bench' || lpad(i::text, 5, '0'), u.password_hash, 1, 'Bench ' || i, u.group_id
       FROM users u, generate_series(1, $1::int) i WHERE u.login_id = 'tester01'`,
    [Math.max(0, EXAMINEES - 12)],
  );
  const logins = (
    await db.query(`SELECT id, login_id FROM users WHERE actor = 1 ORDER BY id LIMIT $1`, [EXAMINEES])
  ).rows;
  await db.end();
  const examinees = [];
  for (let i = 0; i < logins.length; i += 8) {
    const batch = logins.slice(i, i + 8);
    examinees.push(
      ...(await Promise.all(
        batch.map(async (u, k) => {
          const origin = `http://127.0.0.1:${(i + k) % 2 ? bPort : aPort}`;
          const res = await fetch(`${origin}/api/v1/login.php`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ login_id: u.login_id, password: 'demo-pass' }),
          });
          const body = await res.json();
          if (body.status !== 200) throw new Error(`login ${u.login_id}: ${JSON.stringify(body)}`);
          return { id: Number(u.id), token: body.result.access_token };
        }),
      )),
    );
  }
  const poll = (origin) =>
    examinees.map((e) => ({
      url: `${origin}/api/v1/matching.php`,
      method: 'POST',
      token: e.token,
      body: JSON.stringify({
        tester_id: e.id,
        channel_status: 'close',
        stats: { viewers: 0, master: 'idle', peers: {} },
      }),
    }));
  const A = `http://127.0.0.1:${aPort}`;
  const B = `http://127.0.0.1:${bPort}`;
  // Warm-up: every examinee's first poll creates its matching and its signaling credentials (STS).
  await load(
    poll(A)
      .map((t, i) => (i % 2 ? { ...t, url: t.url.replace(A, B) } : t))
      .slice(0, EXAMINEES),
  );

  const measured = async (targets, pids) => {
    const before = pids.map((g) => treeCpu(g));
    const r = await load(targets);
    r.cores = pids.map((g, i) => (treeCpu(g) - before[i]) / SECONDS);
    return r;
  };
  const groups = [[cluster.pid], [instA.pid, instB.pid]];
  const bare = await load(
    Array.from({ length: 64 }, () => ({ url: `http://127.0.0.1:${barePort}/`, method: 'GET' })),
  );
  const one = await measured(poll(A), groups);
  const two = await measured(
    poll(A).map((t, i) => (i % 2 ? { ...t, url: t.url.replace(A, B) } : t)),
    groups,
  );
  const row = (name, r) =>
    `  ${name.padEnd(34)} ${r.rps.toFixed(0).padStart(7)} req/s  p50 ${r.p50.toFixed(1).padStart(6)} ms  p99 ${r.p99
      .toFixed(1)
      .padStart(6)} ms  errors ${r.errors}  ratio to bare ${(r.rps / bare.rps).toFixed(4)}${
      r.cores ? `  cores: PostgreSQL ${r.cores[0].toFixed(2)}, instances ${r.cores[1].toFixed(2)}` : ''
    }`;
  console.log(row('bare Fastify route', bare));
  console.log(row('matching poll, one instance', one));
  console.log(row('matching poll, two instances', two));
  const met = two.rps >= GOAL_RPS && two.p99 <= GOAL_P99;
  console.log(
    `  goal (two instances): >= ${GOAL_RPS} req/s at p99 <= ${GOAL_P99} ms: ${met ? 'goal met' : 'OVER GOAL'}` +
      ` (10,000 examinees every 5 s need 2,000 req/s: ${two.rps >= 2000 ? 'met' : 'not met'})`,
  );
} catch (err) {
  console.error('matching-scale bench set-up failed:', err);
  process.exitCode = 1;
} finally {
  for (const c of children) if (c.exitCode === null) c.kill('SIGTERM');
  await sleep(1500);
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  await cluster?.stop();
  rmSync(work, { recursive: true, force: true });
}

/** A bare Fastify 5 JSON route, logger off: the baseline every figure is a ratio to. */
function BARE_SERVER(port) {
  return `
    import Fastify from 'fastify';
    const app = Fastify({ logger: false });
    app.get('/', async () => ({ status: 200, message: 'OK', result: { matchings: [] } }));
    await app.listen({ host: '127.0.0.1', port: ${port} });
  `;
}
