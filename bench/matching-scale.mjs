// The calls of a live sitting under load: the matching poll (the hottest call: every examinee and every checker,
// every matchingTimeout seconds, for the whole exam) and the other calls examinees and checkers make during the
// exam (webrtc_message, tester/detail, kvs_reconnect, test/status).
//
// Set-up as deployments run it: a throw-away PostgreSQL cluster (scripts/lib-postgres.mjs, with
// pg_stat_statements to count statements), the stand-ins service, instances A and B on that database pointed at
// it; and, separately, one instance as `npm start` runs it (embedded PGlite and stand-ins). Each database holds
// BENCH_EXAMINEES examinees with an open sitting and BENCH_CHECKERS checkers, each with a live session
// (bench/live-calls-populate.mts writes them as logins would, without an Argon2 login each). Before measuring,
// every examinee polls, every checker polls (taking up to five), then everyone polls once more as the exam goes
// on — each checker with its examinees, who report their channel open, then the examinees still waiting: the
// steady state of an exam (connected pairs, the rest waiting for a checker). PostgreSQL then gathers its
// statistics (ANALYZE), as autovacuum does within a minute of an exam's start. Checkers keep polling while their
// examinees connect, as they do in an exam; a pass of the matched examinees alone would leave every checker
// silent for as long as it takes.
//
// Load: BENCH_CONNECTIONS keep-alive connections from BENCH_THREADS worker threads for BENCH_SECONDS per scenario,
// each connection calling as one person after another (round-robin), spread over the scenario's instances as a
// balancer would. The matching scenario mixes the people as an exam does: each checker's poll with its five
// examinees' polls, and the waiting examinees' polls. A bare Fastify JSON route (fastify 5, logger off) runs in the
// same run as the baseline. Instances log at LOG_LEVEL (default info, as deployed).
//
// Prints per scenario: req/s, p50/p99, errors, the ratio to the bare route, statements per request (PostgreSQL),
// and the CPU of the database, the instances, the stand-ins service (PostgreSQL scenarios) and the load generator
// per request. Goals: the matching poll
// >= 5,000 req/s at p99 <= 50 ms on PostgreSQL with two instances, >= 2,000 req/s on PGlite, ratio >= 0.1; every
// other live call >= 2,000 req/s on PostgreSQL. A missed goal is a figure, never a failure (exit 1 only when the
// set-up broke). Everything shares this machine's cores (the load generator too), so figures are lower bounds.
// Usage: node bench/matching-scale.mjs   (BENCH_SECONDS, BENCH_CONNECTIONS, BENCH_EXAMINEES, BENCH_CHECKERS,
//        BENCH_THREADS, LOG_LEVEL, BENCH_ONLY=postgres|pglite, BENCH_TOP=1, BENCH_PROFILE=<dir>, BENCH_PACED=<s>,
//        BENCH_CALLS=<regexp> (only the other live calls whose name matches), BENCH_POLL=0 (the steady state is
//        still brought about, but the matching poll is not measured: for the other live calls alone))
import { spawn, spawnSync } from 'node:child_process';
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
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const EXAMINEES = Number(process.env.BENCH_EXAMINEES ?? 10_000);
const CHECKERS = Number(process.env.BENCH_CHECKERS ?? Math.floor((EXAMINEES * 0.8) / 5));
const THREADS = Number(process.env.BENCH_THREADS ?? 2);
const LOG_LEVEL = process.env.LOG_LEVEL ?? 'info';
// BENCH_PACED=<seconds>: also a scenario of that length where every person polls as its page does, the poll
// interval (5 s) after each answer, each on a connection of its own: how an exam loads the server, queueing in the
// server rather than in the load generator.
const PACED = Number(process.env.BENCH_PACED ?? 0);
const PACE = 5;
const GOAL = {
  pollPg: 5000,
  pollP99: 50,
  pollPglite: 2000,
  ratio: 0.1,
  otherPg: 2000,
};

// ---------------------------------------------------------------- load worker
if (!isMainThread) {
  const { targets, connections, seconds, pace } = workerData;
  const lat = [];
  let errors = 0;
  const statuses = {};
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
          path: u.pathname + u.search,
          method: t.method,
          agent: agentOf(u.origin),
          headers: {
            ...(t.body ? { 'content-type': 'application/json' } : {}),
            ...(t.token ? { authorization: `Bearer ${t.token}` } : {}),
          },
        },
        (res) => {
          res.resume();
          res.on('end', () => {
            if (res.statusCode === 200) lat.push(Number(process.hrtime.bigint() - t0) / 1e6);
            else {
              errors++;
              statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1;
            }
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
    for (let i = c; Date.now() < deadline; i += connections) await one(targets[i % targets.length]);
  };
  // Paced: each target is one person's page, polling `pace` seconds after each answer (the first at a random
  // moment of the first interval, as pages that opened at different times), on a connection of its own.
  const page = async (t) => {
    await new Promise((r) => setTimeout(r, Math.random() * pace * 1000));
    while (Date.now() < deadline) {
      await one(t);
      await new Promise((r) => setTimeout(r, pace * 1000));
    }
  };
  if (pace) await Promise.all(targets.map(page));
  else await Promise.all(Array.from({ length: connections }, (_, c) => loop(c)));
  for (const a of agents.values()) a.destroy();
  parentPort.postMessage({ lat, errors, statuses });
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

async function waitHttp(url, timeoutMs = 120_000) {
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

/**
 * CPU seconds (user + system) used so far by the process trees rooted at `pids` (Linux /proc): the live
 * processes' own time plus the time of the children they reaped (PostgreSQL's backends that ended during a
 * scenario count in their postmaster's cutime/cstime, so the figure never goes backwards).
 */
function treeCpu(pids) {
  const procs = new Map();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      procs.set(Number(d), {
        ppid: Number(f[1]),
        cpu: (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) / 100,
      });
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
async function load(targets, seconds = SECONDS, pace = 0) {
  const per = pace ? targets.length : Math.max(1, Math.floor(CONNECTIONS / THREADS));
  const results = await Promise.all(
    Array.from(
      { length: THREADS },
      (_, k) =>
        new Promise((resolve, reject) => {
          const w = new Worker(fileURLToPath(import.meta.url), {
            workerData: {
              targets: targets.filter((_, i) => i % THREADS === k),
              connections: per,
              seconds,
              pace,
            },
          });
          w.once('message', resolve);
          w.once('error', reject);
        }),
    ),
  );
  const lat = results.flatMap((r) => r.lat).sort((x, y) => x - y);
  const q = (p) => (lat.length ? lat[Math.min(lat.length - 1, Math.floor(p * lat.length))] : NaN);
  const statuses = {};
  for (const r of results)
    for (const [k, v] of Object.entries(r.statuses)) statuses[k] = (statuses[k] ?? 0) + v;
  return {
    n: lat.length,
    rps: lat.length / seconds,
    p50: q(0.5),
    p99: q(0.99),
    errors: results.reduce((n, r) => n + r.errors, 0),
    statuses,
  };
}

/** Sends every request once, CONNECTIONS at a time, and returns the parsed bodies (priming the steady state). */
async function once(targets) {
  const out = new Array(targets.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (next < targets.length) {
        const i = next++;
        const t = targets[i];
        const res = await fetch(t.url, {
          method: t.method,
          headers: {
            'content-type': 'application/json',
            authorization: `Bearer ${t.token}`,
          },
          body: t.body,
        });
        out[i] = await res.json();
        if (out[i].status !== 200) throw new Error(`${t.url}: ${JSON.stringify(out[i]).slice(0, 300)}`);
      }
    }),
  );
  return out;
}

const work = mkdtempSync(path.join(os.tmpdir(), 'bench-matching-'));
const children = [];
// BENCH_PROFILE=<dir>: the instances write V8 CPU profiles there (node --cpu-prof) when they stop.
const PROFILE = process.env.BENCH_PROFILE
  ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(process.env.BENCH_PROFILE)}`]
  : [];
const start = (name, args, env) => {
  const out = openSync(path.join(work, `${name}.log`), 'a');
  const c = spawn(process.execPath, name.startsWith('instance') ? [...PROFILE, ...args] : args, {
    cwd: ROOT,
    env,
    stdio: ['ignore', out, out],
  });
  children.push(c);
  return c;
};
const stop = async (c) => {
  if (c.exitCode !== null) return;
  c.kill('SIGTERM');
  for (let i = 0; i < 40 && c.exitCode === null; i++) await sleep(100);
  if (c.exitCode === null) c.kill('SIGKILL');
};
const base = {
  PATH: process.env.PATH,
  HOME: process.env.HOME,
  ENV_FILE: '/dev/null',
};
const instanceEnv = (port, dataDir) => ({
  ...base,
  HOST: '127.0.0.1',
  PORT: String(port),
  DATA_DIR: dataDir,
  DEMO: '1',
  AI_WORKERS: '0',
  LOG_LEVEL,
  LOGIN_PER_IP_PER_MINUTE: '1000000',
});

function populate(env) {
  const out = path.join(work, `people-${randomBytes(4).toString('hex')}.json`);
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'bench/live-calls-populate.mts'], {
    cwd: ROOT,
    env: {
      ...base,
      ...env,
      EXAMINEES: String(EXAMINEES),
      CHECKERS: String(CHECKERS),
      OUT: out,
    },
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`populate failed: ${r.stderr || r.stdout}`);
  return JSON.parse(readFileSync(out, 'utf8'));
}

const stats = { viewers: 0, master: 'idle', peers: {} };

/**
 * Brings a database to an exam's steady state through `origins`, and returns the load mixes: the matching polls
 * (each checker with its examinees, then the waiting ones) and each other live call.
 */
async function steadyState(people, origins) {
  const at = (i) => origins[i % origins.length];
  const examineePoll = (e, i, cs) => ({
    url: `${at(i)}/api/v1/matching.php`,
    method: 'POST',
    token: e.token,
    body: JSON.stringify({ tester_id: e.id, channel_status: cs, stats }),
  });
  const checkerPoll = (c, i) => ({
    url: `${at(i)}/api/v1/matching.php`,
    method: 'POST',
    token: c.token,
    body: '{}',
  });
  await once(people.examinees.map((e, i) => examineePoll(e, i, 'close')));
  const polled = await once(people.checkers.map((c, i) => checkerPoll(c, i)));
  const checkerOf = new Map();
  polled.forEach((p, i) => {
    for (const m of p.result.matchings) checkerOf.set(Number(m.tester_id), people.checkers[i]);
  });
  const byId = new Map(people.examinees.map((e) => [e.id, e]));
  const mix = [];
  let k = 0;
  people.checkers.forEach((c, i) => {
    mix.push(checkerPoll(c, k++));
    for (const m of polled[i].result.matchings) {
      mix.push(examineePoll(byId.get(Number(m.tester_id)), k++, 'open'));
    }
  });
  for (const e of people.examinees) if (!checkerOf.has(e.id)) mix.push(examineePoll(e, k++, 'close'));
  await once(mix);
  const matched = people.examinees.filter((e) => checkerOf.has(e.id));
  const other = {
    'webrtc_message (GET, examinee)': people.examinees.map((e, i) => ({
      url: `${at(i)}/api/v1/webrtc_message.php?tester_id=${e.id}&since_id=0`,
      method: 'GET',
      token: e.token,
    })),
    'tester/detail (checker)': matched.map((e, i) => ({
      url: `${at(i)}/api/v1/tester/detail.php?tester_id=${e.id}`,
      method: 'GET',
      token: checkerOf.get(e.id).token,
    })),
    'kvs_reconnect (examinee)': matched.map((e, i) => ({
      url: `${at(i)}/api/v1/kvs_reconnect.php`,
      method: 'GET',
      token: e.token,
    })),
    'test/status (examinee)': people.examinees.map((e, i) => ({
      url: `${at(i)}/api/v1/test/status.php`,
      method: 'POST',
      token: e.token,
      body: JSON.stringify({ process: 1 }),
    })),
  };
  return { mix, other, matched: matched.length };
}

const ONLY = process.env.BENCH_ONLY; // 'postgres' or 'pglite': only those scenarios
// BENCH_CALLS=<regexp>: only the other live calls whose name matches (e.g. '^$' for the matching poll alone).
const OTHER_CALLS = new RegExp(process.env.BENCH_CALLS ?? '');
const POLL = process.env.BENCH_POLL !== '0';
let cluster;
const rows = [];
try {
  console.log(
    `live calls: ${EXAMINEES} examinees, ${CHECKERS} checkers, ${CONNECTIONS} connections, ${SECONDS} s per ` +
      `scenario, ${THREADS} load threads, LOG_LEVEL=${LOG_LEVEL}, ${os.availableParallelism()} cores shared by ` +
      `everything (load average at start ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')})`,
  );
  const [standinsPort, aPort, bPort, pPort, barePort] = await Promise.all(
    Array.from({ length: 5 }, () => freePort()),
  );
  start('bare', ['--input-type=module', '-e', BARE_SERVER(barePort)], base);
  await waitHttp(`http://127.0.0.1:${barePort}/`);

  /**
   * Runs `targets` for BENCH_SECONDS and records the figures. A matching scenario (`warm`) starts from the steady
   * state: every examinee polled just now (one silent for 3 poll intervals gets a connection gap recorded by its
   * next poll, as in a real exam) and every session known to the instance that answers it. `pg`: a client of the
   * cluster, to count statements.
   */
  const measured = async (name, targets, cpuOf, { pg: db, warm = false, pace = 0 } = {}) => {
    if (warm) await once(targets);
    const since = db ? (await db.query('SELECT now() AS t')).rows[0].t : null;
    const statements = async () =>
      Number(
        (await db.query(`SELECT coalesce(sum(calls), 0)::bigint AS n FROM pg_stat_statements`)).rows[0].n,
      );
    if (db && process.env.BENCH_TOP) await db.query('SELECT pg_stat_statements_reset(), pg_stat_reset()');
    const before = cpuOf.map((g) => treeCpu(g.pids));
    const self0 = process.cpuUsage();
    const s0 = db ? await statements() : 0;
    const r = await load(targets, pace ? PACED : SECONDS, pace);
    const s1 = db ? await statements() : 0;
    const self = process.cpuUsage(self0);
    r.name = name;
    if (pace) r.rps = r.n / PACED;
    // Matchings opened and ended by the liveness sweep while the scenario ran: a steady exam has none.
    if (db && /^matching/.test(name))
      r.churn = (
        await db.query(
          `SELECT (SELECT count(*) FROM matchings WHERE created_at >= $1)::int AS opened,
                  (SELECT count(*) FROM matchings WHERE deleted_at >= $1 AND delete_reason = 'no_response')::int AS gone,
                  (SELECT count(*) FROM matchings WHERE deleted_at >= $1 AND delete_reason = 'checker_timeout')::int AS released`,
          [since],
        )
      ).rows[0];
    r.cpu = cpuOf.map((g, i) => [g.name, ((treeCpu(g.pids) - before[i]) * 1000) / Math.max(1, r.n)]);
    r.cpu.push(['load generator', (self.user + self.system) / 1000 / Math.max(1, r.n)]);
    if (db) {
      // Less the statement that counted.
      r.statements = (s1 - s0 - 1) / Math.max(1, r.n);
      // BENCH_TOP=1: also the statements the scenario ran most (where the database's time goes).
      if (process.env.BENCH_TOP)
        r.top = (
          await db.query(
            `SELECT calls, round(total_exec_time::numeric, 1) AS ms,
                    left(regexp_replace(query, '\\s+', ' ', 'g'), 140) AS q
               FROM pg_stat_statements ORDER BY calls DESC LIMIT 8`,
          )
        ).rows.map((x) => `      ${(Number(x.calls) / Math.max(1, r.n)).toFixed(2)}/req ${x.ms} ms  ${x.q}`);
      // …and the tables' row updates: how many were HOT (no index entries written; an update of an indexed
      // column never is). The statistics collector reports them after a short delay.
      if (process.env.BENCH_TOP) {
        await new Promise((done) => setTimeout(done, 1000));
        const t = await db.query(
          `SELECT relname, n_tup_upd::bigint AS upd, n_tup_hot_upd::bigint AS hot FROM pg_stat_user_tables
            WHERE n_tup_upd > 0 ORDER BY n_tup_upd DESC LIMIT 4`,
        );
        r.top.push(
          `      updates: ${t.rows.map((x) => `${x.relname} ${(Number(x.upd) / Math.max(1, r.n)).toFixed(2)}/req (${Math.round((100 * Number(x.hot)) / Math.max(1, Number(x.upd)))} % HOT)`).join(', ')}`,
        );
      }
    }
    rows.push(r);
    return r;
  };

  const bare = await measured(
    'bare Fastify route',
    Array.from({ length: 64 }, () => ({
      url: `http://127.0.0.1:${barePort}/`,
      method: 'GET',
    })),
    [],
  );
  let pollOne;
  let pollTwo;
  let pollP;
  let steadyNote = '';
  const others = [];

  if (ONLY !== 'pglite') {
    cluster = await startPostgres({
      settings: {
        shared_preload_libraries: 'pg_stat_statements',
        'pg_stat_statements.max': 5000,
      },
    });
    const standins = `http://127.0.0.1:${standinsPort}`;
    const credentialsCacheKey = randomBytes(32).toString('base64');
    const key = {
      id: `AKIABENCH${randomBytes(6).toString('hex').toUpperCase()}`,
      secret: randomBytes(30).toString('base64'),
    };
    const standinsProc = start('standins', ['--import', 'tsx', 'server/src/standins/main.ts'], {
      ...base,
      STANDINS_PORT: String(standinsPort),
      STANDINS_DATA_DIR: path.join(work, 'standins'),
      STANDINS_ACCESS_KEY_ID: key.id,
      STANDINS_SECRET_ACCESS_KEY: key.secret,
      LOG_LEVEL: 'warn',
    });
    const onPg = (name, port) =>
      start(`instance-${name}`, ['--import', 'tsx', 'server/src/server.ts'], {
        ...instanceEnv(port, path.join(work, name)),
        DATABASE_URL: cluster.url,
        DATABASE_POOL_SIZE: '20',
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
        // Both instances seal and open the signaling credentials they share in the database with one key.
        CREDENTIALS_CACHE_KEY: credentialsCacheKey,
      });
    await waitHttp(`${standins}/healthz`);
    const instA = onPg('a', aPort);
    await waitHttp(`http://127.0.0.1:${aPort}/readyz`); // A migrates and seeds; B then finds it done
    const instB = onPg('b', bPort);
    await waitHttp(`http://127.0.0.1:${bPort}/readyz`);
    const A = `http://127.0.0.1:${aPort}`;
    const B = `http://127.0.0.1:${bPort}`;
    const db = new pg.Client({ connectionString: cluster.url });
    db.on('error', () => undefined); // the cluster stops at the end
    await db.connect();
    await db.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');

    const two = await steadyState(populate({ DATABASE_URL: cluster.url }), [A, B]);
    // Statistics of the steady state, as autovacuum gathers them within a minute of an exam's start: the tables
    // just filled (accounts, sittings, 10,000 live matchings) were planned for as nearly empty until then.
    await db.query('ANALYZE');
    steadyNote =
      `steady state on PostgreSQL: ${two.matched} of ${EXAMINEES} examinees connected to a checker, the rest ` +
      `waiting; the matching mix is ${two.mix.length} polls`;
    const groups = [
      { name: 'PostgreSQL', pids: [cluster.pid] },
      { name: 'instances', pids: [instA.pid, instB.pid] },
      { name: 'stand-ins', pids: [standinsProc.pid] },
    ];
    const viaA = two.mix.map((t) => ({ ...t, url: t.url.replace(B, A) }));
    if (POLL) {
      pollOne = await measured('matching poll, PostgreSQL, one instance', viaA, groups, {
        pg: db,
        warm: true,
      });
      pollTwo = await measured('matching poll, PostgreSQL, two instances', two.mix, groups, {
        pg: db,
        warm: true,
      });
    }
    if (PACED)
      await measured(
        `matching poll, PostgreSQL, two instances, paced (${PACE} s after each answer)`,
        two.mix,
        groups,
        {
          pg: db,
          pace: PACE,
        },
      );
    for (const [name, targets] of Object.entries(two.other))
      if (targets.length > 0 && OTHER_CALLS.test(name))
        others.push(await measured(`${name}, PostgreSQL, two instances`, targets, groups, { pg: db }));
    await db.end();
    await Promise.all([stop(instA), stop(instB)]);
  }

  if (ONLY !== 'postgres' && POLL) {
    // npm start's default: one process, embedded PGlite and stand-ins.
    const pDir = path.join(work, 'pglite');
    const people = populate({ DATA_DIR: pDir });
    const instP = start(
      'instance-pglite',
      ['--import', 'tsx', 'server/src/server.ts'],
      instanceEnv(pPort, pDir),
    );
    const P = `http://127.0.0.1:${pPort}`;
    await waitHttp(`${P}/readyz`);
    const onP = await steadyState(people, [P]);
    pollP = await measured(
      'matching poll, PGlite (npm start)',
      onP.mix,
      [{ name: 'instance', pids: [instP.pid] }],
      {
        warm: true,
      },
    );
    await stop(instP);
  }

  if (steadyNote) console.log(steadyNote);
  for (const r of rows) {
    const cpu = r.cpu.map(([k, v]) => `${k} ${v.toFixed(3)}`).join(', ');
    console.log(
      `  ${r.name.padEnd(52)} ${r.rps.toFixed(0).padStart(6)} req/s  p50 ${r.p50.toFixed(1).padStart(6)} ms  ` +
        `p99 ${r.p99.toFixed(1).padStart(6)} ms  errors ${r.errors}${r.errors ? ` ${JSON.stringify(r.statuses)}` : ''}` +
        `  ratio ${(r.rps / bare.rps).toFixed(3)}` +
        (r.statements !== undefined ? `  statements/req ${r.statements.toFixed(2)}` : '') +
        (r.churn
          ? `  matchings opened ${r.churn.opened}, ended as gone ${r.churn.gone}, released ${r.churn.released}`
          : '') +
        (cpu ? `  CPU ms/req: ${cpu}` : ''),
    );
    if (r.top) console.log(r.top.join('\n'));
  }
  const verdict = (ok) => (ok ? 'goal met' : 'OVER GOAL');
  // Below this rate some examinees go longer than 3 poll intervals between polls: their polls record gaps and
  // the figure is no longer the steady state's.
  const steady = (EXAMINEES + CHECKERS) / 15;
  for (const r of [pollOne, pollTwo, pollP])
    if (r && r.rps < steady)
      console.log(
        `  note: ${r.name} below ${steady.toFixed(0)} req/s: examinees polled less than every 15 s`,
      );
  for (const r of pollTwo ? [] : others)
    console.log(
      `  goal: ${r.name} >= ${GOAL.otherPg} req/s: ${verdict(r.rps >= GOAL.otherPg && r.errors === 0)}`,
    );
  if (pollTwo) {
    console.log(
      `  goal: matching poll >= ${GOAL.pollPg} req/s at p99 <= ${GOAL.pollP99} ms on PostgreSQL, two instances: ` +
        verdict(pollTwo.rps >= GOAL.pollPg && pollTwo.p99 <= GOAL.pollP99) +
        ` (one instance: ${verdict(pollOne.rps >= GOAL.pollPg && pollOne.p99 <= GOAL.pollP99)})`,
    );
    console.log(
      `  goal: ratio to the bare route >= ${GOAL.ratio}: ${verdict(pollTwo.rps / bare.rps >= GOAL.ratio)} ` +
        `(two instances ${(pollTwo.rps / bare.rps).toFixed(3)})`,
    );
    for (const r of others)
      console.log(
        `  goal: ${r.name} >= ${GOAL.otherPg} req/s: ${verdict(r.rps >= GOAL.otherPg && r.errors === 0)}`,
      );
    console.log(
      `  (10,000 examinees and 2,000 checkers polling every 5 s make 2,400 matching polls a second: ` +
        `${pollTwo.rps >= 2400 ? 'met' : 'not met'} on two instances)`,
    );
  }
  if (pollP)
    console.log(
      `  goal: matching poll >= ${GOAL.pollPglite} req/s on PGlite: ${verdict(pollP.rps >= GOAL.pollPglite)}`,
    );
} catch (err) {
  console.error('matching-scale bench set-up failed:', err);
  console.error(`logs: ${work}`);
  process.exitCode = 1;
} finally {
  await Promise.all(children.map(stop));
  await cluster?.stop();
  if (process.exitCode !== 1) rmSync(work, { recursive: true, force: true });
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
