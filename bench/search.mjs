// Examinee search benchmark (the examinee search at a million sittings). Seeds SEARCH_ROWS examinee sittings
// (default 1,000,000; tests rows with their users, groups and some markings, all by generate_series in SQL) into
// a fresh PGlite in a temp dir and into a fresh PostgreSQL database: on DATABASE_URL / TEST_DATABASE_URL when
// set (a database created and dropped here), else on a throw-away cluster of its own (scripts/lib-postgres.mjs,
// as bench/matching-scale.mjs starts one). Through the real app (server/src/app.ts) it reports search p50/p95
// for typical filters as the screen asks for them: page 1 (counted), a deep page reached with next (keyset
// cursor, not counted again) and a jump to a deep page number (OFFSET, or read from the end); the exact count
// (an API option the screen never asks for: printed, outside the tally); and the time and peak RSS growth of a
// 100k-row CSV streamed from downloadExamUserList over a real socket. Each figure is printed against its goal
// with "goal met" or "over goal" (p95 ≤ 50 ms; CSV ≤ 5 s and ≤ 64 MB); it never fails. Beside the wall-clock
// figures it prints the CPU time per request (this process, plus the PostgreSQL backends of the bench database
// read from /proc when they are on this machine) and the load average, because on a shared machine the wall
// clock also counts the time spent waiting for a core.
// Usage: node bench/search.mjs   (SEARCH_ROWS, SEARCH_PGLITE_SEED_BUDGET_S, SEARCH_SKIP_PGLITE=1,
// SEARCH_SKIP_POSTGRES=1, SEARCH_NO_VACUUM=1, SEARCH_CASES=<regexp of case names>, SEARCH_CSV_ONLY=1 tune it;
// SEARCH_PGLITE_DIR=<dir> and, with DATABASE_URL, SEARCH_PG_DATABASE=<name> keep the seeded database there and
// reuse it on the next run, migrated to the current schema, instead of seeding again)
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { register } from 'tsx/esm/api';
import { startPostgres } from '../scripts/lib-postgres.mjs';

register();
const { openDb } = await import('../server/src/db/db.ts');
const { migrate } = await import('../server/src/db/migrate.ts');
const { buildApp } = await import('../server/src/app.ts');
const { loadConfig } = await import('../server/src/config.ts');
const { newToken, hashToken } = await import('../server/src/lib/tokens.ts');

const FULL = Number(process.env.SEARCH_ROWS ?? 1_000_000);
const PGLITE_BUDGET_S = Number(process.env.SEARCH_PGLITE_SEED_BUDGET_S ?? 180);
const GOAL_P95 = 50;
const GOAL_CSV_S = 5;
const GOAL_CSV_MB = 64;
const GROUPS = 40;
const CHUNK = 100_000;

const ms = (t0) => Number(process.hrtime.bigint() - t0) / 1e6;
const now = () => process.hrtime.bigint();
const mark = (ok) => (ok ? 'goal met' : 'over goal');
const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

/** CPU nanoseconds a process has run (/proc/<pid>/schedstat), or null when it cannot be read. */
function procCpuNs(pid) {
  try {
    return Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]);
  } catch {
    return null;
  }
}

/** CPU milliseconds of the exited children a process has reaped (/proc/<pid>/stat cutime + cstime), or null. */
function reapedChildrenCpuMs(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(f[13]) + Number(f[14])) * 1000) / CLOCK_TICKS;
  } catch {
    return null;
  }
}
const CLOCK_TICKS = 100; // USER_HZ on Linux

/**
 * CPU time spent for the bench database: this process (the app, and PGlite inside it) plus, on PostgreSQL on
 * this machine, its backends serving the bench database and the parallel workers they started (exited by the
 * time they could be read, so counted from the postmaster's reaped-children time, to 10 ms). `read()` gives
 * milliseconds since `start()`; `pgKnown` is false when the backends could not be read (a remote server).
 */
function cpuMeter(db) {
  let node0 = 0;
  let pg0 = new Map();
  let reaped0 = 0;
  let postmaster = null;
  const backends = async () => {
    if (db.kind !== 'postgres') return new Map();
    const { rows } = await db.query(`SELECT pid FROM pg_stat_activity WHERE datname = current_database()`);
    return new Map(rows.map((r) => [r.pid, procCpuNs(r.pid)]));
  };
  const nodeUs = () => {
    const u = process.cpuUsage();
    return u.user + u.system;
  };
  return {
    pgKnown: true,
    async start() {
      if (db.kind === 'postgres' && postmaster === null) {
        try {
          const dir = (await db.query(`SELECT current_setting('data_directory') AS d`)).rows[0].d;
          postmaster = Number(readFileSync(path.join(dir, 'postmaster.pid'), 'utf8').split('\n')[0]);
        } catch {
          postmaster = 0; // not a superuser, or not on this machine
        }
      }
      pg0 = await backends();
      reaped0 = postmaster ? (reapedChildrenCpuMs(postmaster) ?? 0) : 0;
      node0 = nodeUs();
    },
    async read() {
      const node = (nodeUs() - node0) / 1000;
      const pg1 = await backends();
      let pg = postmaster ? (reapedChildrenCpuMs(postmaster) ?? reaped0) - reaped0 : 0;
      for (const [pid, ns] of pg1) {
        if (ns === null) this.pgKnown = false;
        else pg += (ns - (pg0.get(pid) ?? 0)) / 1e6;
      }
      return { node, pg };
    },
  };
}

/** Seeds `rows` sittings in chunks; stops early (returning the rows seeded) once `budgetS` is spent. */
async function seed(db, rows, budgetS) {
  const t0 = now();
  await db.exec(`
    INSERT INTO exam_groups (code, name)
      SELECT 'BG' || lpad(i::text, 3, '0'), (ARRAY['Alpha','Beta','Gamma','Delta','Omega','Sigma','Kappa','Zeta'])[i % 8 + 1] || ' 団体 ' || i
      FROM generate_series(1, ${GROUPS}) i;
    INSERT INTO marks (message, label, order_id, display, score) VALUES ('bench look-away', 'B1', 90, 1, 5), ('bench phone', 'B2', 91, 1, 10);
  `);
  const users = Math.ceil(rows / 4);
  await db.exec(`
    INSERT INTO users (login_id, password_hash, actor, name, group_id)
      SELECT 'bt' || i, 'x', 1, 'Bench ' || i, (SELECT min(id) FROM exam_groups WHERE code LIKE 'BG%') + i % ${GROUPS}
      FROM generate_series(1, ${users}) i;
  `);
  // Bulk load the usual way: drop the secondary indexes of tests, load, re-create them (the same definitions,
  // read from pg_indexes, so the search runs on exactly the schema's indexes).
  const idx = (
    await db.query(
      `SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'tests' AND indexname <> 'tests_pkey'`,
    )
  ).rows;
  for (const i of idx) await db.exec(`DROP INDEX ${i.indexname}`);
  let done = 0;
  while (done < rows) {
    const lo = done + 1;
    const hi = Math.min(rows, done + CHUNK);
    await db.exec(`
      WITH b AS (SELECT (SELECT min(id) FROM users WHERE login_id LIKE 'bt%') AS u0,
                        (SELECT min(id) FROM exam_groups WHERE code LIKE 'BG%') AS g0)
      INSERT INTO tests (user_id, group_id, login_id, test_name, region, exam_name, test_at, stop_at, status,
                         with_mark, record, cheating_level, total_score, ai_namematch, ai_analysis_flag, pass)
      SELECT b.u0 + (i % ${users}), b.g0 + (i % ${users}) % ${GROUPS}, 'bt' || (i % ${users} + 1),
             '試験 ' || (i % 25), '会場 ' || (i % 60),
             (ARRAY['Sato','Suzuki','Takahashi','Tanaka','Watanabe','Ito','Yamamoto','Nakamura','Kobayashi','Kato'])[i % 10 + 1]
               || ' ' || (ARRAY['Haruto','Yui','Sota','Hina','Ren','Mei','Yuto','Aoi','Riku','Sakura'])[(i / 10) % 10 + 1]
               || ' ' || substr(md5(i::text), 1, 6),
             timestamptz '2024-01-01 00:00:00+09' + i * interval '47 seconds',
             timestamptz '2024-01-01 01:00:00+09' + i * interval '47 seconds', 6,
             i % 7 = 0, i % 3 <> 0, i % 6, (i * 37) % 101, 40 + i % 61, i % 2, CASE WHEN i % 5 = 0 THEN NULL ELSE i % 2 END
      FROM generate_series(${lo}, ${hi}) i, b;
    `);
    done = hi;
    const elapsed = ms(t0) / 1000;
    if (elapsed > budgetS && done < rows) {
      console.log(
        `  seeding stopped at ${done.toLocaleString()} rows after ${elapsed.toFixed(0)} s (budget ${budgetS} s)`,
      );
      break;
    }
  }
  const ti = now();
  for (const i of idx) await db.exec(i.indexdef);
  console.log(`  re-created ${idx.length} indexes of tests in ${(ms(ti) / 1000).toFixed(0)} s`);
  // Markings on every 7th sitting (the with_mark ones): one of the two bench mark types chosen by a hash of
  // the id (not by its parity, which would tie a mark type to the group), and on a third of them a second
  // marking of the other type too. Loaded with the markings trigger off and tests.mark_ids filled in one
  // statement, the way migration 0009 fills it for existing data (a row trigger per marking is the path of
  // the checker's single markings, not of a bulk load).
  await db.exec(`
    ALTER TABLE markings DISABLE TRIGGER markings_mark_ids_trg;
    WITH m AS (SELECT min(id) AS m0 FROM marks WHERE label LIKE 'B%'),
         h AS (SELECT t.id, t.user_id, t.test_at, get_byte(decode(md5(t.id::text), 'hex'), 0) AS x
                 FROM tests t WHERE t.with_mark AND t.login_id LIKE 'bt%')
    INSERT INTO markings (test_id, tester_id, mark_id, marking_at)
      SELECT h.id, h.user_id, m.m0 + (h.x % 2), h.test_at + interval '5 minutes' FROM h, m
      UNION ALL
      SELECT h.id, h.user_id, m.m0 + 1 - (h.x % 2), h.test_at + interval '9 minutes' FROM h, m WHERE h.x % 3 = 0;
    UPDATE tests t SET mark_ids = m.ids
      FROM (SELECT test_id, array_agg(DISTINCT mark_id ORDER BY mark_id) AS ids
              FROM markings WHERE mark_id IS NOT NULL GROUP BY test_id) m
     WHERE m.test_id = t.id;
    ALTER TABLE markings ENABLE TRIGGER markings_mark_ids_trg;
  `);
  // The state a live database settles in: PostgreSQL's autovacuum vacuums a table after a bulk load (the
  // visibility map that index-only scans need, and statistics). PGlite runs no autovacuum, so there this is
  // the state after a manual VACUUM. SEARCH_NO_VACUUM=1 measures right after the load (ANALYZE only).
  const tv = now();
  await db.exec(process.env.SEARCH_NO_VACUUM === '1' ? 'ANALYZE' : 'VACUUM ANALYZE');
  console.log(
    `  ${process.env.SEARCH_NO_VACUUM === '1' ? 'ANALYZE (no VACUUM)' : 'VACUUM ANALYZE'} in ${(ms(tv) / 1000).toFixed(0)} s`,
  );
  return { rows: done, seedS: ms(t0) / 1000 };
}

async function sysadminToken(db) {
  const { rows } = await db.query(
    `INSERT INTO users (login_id, password_hash, actor, name) VALUES ('bench-admin', 'x', 4, 'bench')
     ON CONFLICT (login_id) DO UPDATE SET actor = 4 RETURNING id`,
  );
  const token = newToken();
  await db.query(
    `INSERT INTO sessions (user_id, token_hash, ip, expires_at) VALUES ($1, $2, '127.0.0.1', now() + interval '1 day')`,
    [rows[0].id, hashToken(token)],
  );
  return token;
}

function pct(xs, p) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
}

async function runCases(app, token, db) {
  const g = (await db.query(`SELECT id FROM exam_groups WHERE code = 'BG007'`)).rows[0].id;
  const markId = (await db.query(`SELECT min(id) AS id FROM marks WHERE label = 'B2'`)).rows[0].id;
  const rare = (await db.query(`SELECT substr(md5('424242'), 1, 6) AS h`)).rows[0].h;
  const cases = [
    ['no filter, date desc (default)', {}],
    ['group + date range', { group: g, test_at_date_from: '2024-03-01', test_at_date_to: '2024-06-30' }],
    ['fuzzy name (common: tanaka)', { exam_name: 'tanaka', is_like_search: 1 }],
    ['fuzzy name (rare fragment)', { exam_name: rare, is_like_search: 1 }],
    ['login id', { login_id: 'bt4242' }],
    ['score ≥ 90', { score: 90 }],
    ['with marking', { with_mark: 1 }],
    ['mark type', { mark_id: markId }],
    ['group + mark type', { group: g, mark_id: markId }],
    [
      'mark type + date range',
      { mark_id: markId, test_at_date_from: '2024-03-01', test_at_date_to: '2024-06-30' },
    ],
    ['sort by group name, no filter', { sort_key: 1 }],
    ['sort by group name asc, score ≥ 90', { sort_key: 1, sort_order: 1, score: 90 }],
    ['sort by score, no filter', { sort_key: 7 }],
    ['sort by marking, no filter', { sort_key: 6 }],
    ['sort by name asc, no filter', { sort_key: 5, sort_order: 1 }],
  ];
  const get = async (q) => {
    const qs = new URLSearchParams(Object.entries(q).map(([k, v]) => [k, String(v)])).toString();
    const r = await app.inject({
      method: 'GET',
      url: `/api/v1/testers.php?${qs}`,
      headers: { authorization: `Bearer ${token}` },
    });
    if (r.statusCode !== 200) throw new Error(`${r.statusCode} ${r.body.slice(0, 200)}`);
    return r.json().result;
  };
  // A server that has been running: V8 compiles PGlite's WebAssembly with its baseline compiler first and
  // optimises the hot functions after a while, so the first few dozen searches of a process cost 3–5 times
  // what later ones do (and the first page-1 case would measure that). A round of every case first.
  for (let round = 0; round < 2; round++) {
    for (const [, q] of cases) await get({ max_display_count: 50, ...q, page: 1 });
  }
  const meter = cpuMeter(db);
  const timeIt = async (q, n = 15, budgetMs = 6000) => {
    await get(q); // warm
    const xs = [];
    const t0 = Date.now();
    let last;
    await meter.start();
    for (let i = 0; i < n && (i < 3 || Date.now() - t0 < budgetMs); i++) {
      const t = now();
      last = await get(q);
      xs.push(ms(t));
    }
    const cpu = await meter.read();
    return { p50: pct(xs, 50), p95: pct(xs, 95), n: xs.length, last, cpu: (cpu.node + cpu.pg) / xs.length };
  };
  const fmt = (r) =>
    `p50 ${r.p50.toFixed(1).padStart(7)} ms  p95 ${r.p95.toFixed(1).padStart(7)} ms  cpu ${r.cpu.toFixed(1).padStart(6)} ms/req (n=${r.n}) ${mark(r.p95 <= GOAL_P95)}`;
  let over = 0;
  let total = 0;
  let notAsked = 0;
  /** One figure; `asked` false for a request the screen never makes (README says why): not in the tally. */
  const report = (name, label, r, extra = '', asked = true) => {
    console.log(`  ${name.padEnd(40)} ${label.padEnd(17)} ${fmt(r)}${extra}`);
    if (!asked) {
      notAsked++;
      return;
    }
    total++;
    if (r.p95 > GOAL_P95) over++;
  };
  console.log(`  load average at start: ${load()}`);
  console.log(`  ${'case'.padEnd(40)} ${'page'.padEnd(17)} figures`);
  // The requests the screen makes (src/features/examinees/examinees-thunks.ts): page 1 counted; next and
  // previous by the remembered keyset cursor without counting again (skip_count); a jump to a page number
  // by OFFSET, counted again only in the second half of an exact count (the server reads it from the end).
  for (const [name, q] of cases.filter(
    ([n]) => !process.env.SEARCH_CASES || new RegExp(process.env.SEARCH_CASES).test(n),
  )) {
    const base = { max_display_count: 50, ...q };
    const p1 = await timeIt({ ...base, page: 1 });
    report(name, 'page 1', p1, `  count ${p1.last.count}${p1.last.count_capped ? '+' : ''}`);
    const pageCount = p1.last.page_count;
    const deepPage = Math.max(1, Math.min(200, pageCount));
    // Sequential: follow next_cursor from page 1 for up to 40 pages, then time that deep cursor page.
    let cur = p1.last.next_cursor;
    let pages = 1;
    while (cur && pages < Math.min(40, deepPage - 1)) {
      const r = await get({ ...base, cursor: cur, page: pages + 1, skip_count: 1 });
      cur = r.next_cursor;
      pages++;
    }
    if (cur)
      report(
        '',
        `next → p${pages + 1}`,
        await timeIt({ ...base, cursor: cur, page: pages + 1, skip_count: 1 }),
      );
    if (deepPage > 1) {
      const fromEnd = !p1.last.count_capped && 2 * (deepPage - 1) * 50 + 50 > p1.last.count;
      const pd = await timeIt({ ...base, page: deepPage, ...(fromEnd ? {} : { skip_count: 1 }) });
      report('', `jump → p${deepPage}${fromEnd ? ' (end)' : ''}`, pd);
    }
  }
  if (!process.env.SEARCH_CASES || new RegExp(process.env.SEARCH_CASES).test('exact count')) {
    // `exact_count=1`: an API option the screen never sends (README "Examinee search at a million sittings").
    const ex = await timeIt({ exact_count: 1 }, 15, 10_000);
    const note = ' (the screen never asks for it)';
    report('exact count, no filter', 'page 1', ex, `  count ${ex.last.count.toLocaleString()}${note}`, false);
    const ex2 = await timeIt(
      { exact_count: 1, group: g, test_at_date_from: '2024-03-01', test_at_date_to: '2024-06-30' },
      15,
    );
    report(
      'exact count, group + date range',
      'page 1',
      ex2,
      `  count ${ex2.last.count.toLocaleString()}${note}`,
      false,
    );
  }
  console.log(`  load average at end: ${load()}`);
  if (!meter.pgKnown) console.log('  (cpu: the PostgreSQL backends could not be read; this process only)');
  return { over, total, notAsked };
}

async function csvRun(app, token, db) {
  // A filter matching ~100k rows: the first 100k test ids of the bench (test_at ascending, 47 s apart).
  const { rows } = await db.query(
    `SELECT to_char(min(test_at) AT TIME ZONE 'Asia/Tokyo', 'YYYY-MM-DD') AS a,
            to_char((min(test_at) + 99999 * interval '47 seconds') AT TIME ZONE 'Asia/Tokyo', 'YYYY-MM-DD') AS b
       FROM tests WHERE login_id LIKE 'bt%'`,
  );
  const address = await app.listen({ host: '127.0.0.1', port: 0 });
  const qs = new URLSearchParams({ test_at_date_from: rows[0].a, test_at_date_to: rows[0].b }).toString();
  global.gc?.();
  const rss0 = process.memoryUsage().rss;
  let peak = rss0;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 10);
  const t0 = now();
  const res = await fetch(`${address}/api/v1/downloadExamUserList.php?${qs}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  let bytes = 0;
  let lines = 0;
  for await (const chunk of res.body) {
    bytes += chunk.length;
    for (let i = 0; i < chunk.length; i++) if (chunk[i] === 10) lines++;
  }
  const secs = ms(t0) / 1000;
  clearInterval(timer);
  peak = Math.max(peak, process.memoryUsage().rss);
  const grow = (peak - rss0) / 1048576;
  console.log(
    `  CSV ${res.status} ${(lines - 1).toLocaleString()} rows (${(bytes / 1e6).toFixed(1)} MB) in ${secs.toFixed(2)} s ${mark(secs <= GOAL_CSV_S)}; peak RSS growth ${grow.toFixed(1)} MB ${mark(grow <= GOAL_CSV_MB)} (server and client share this process)`,
  );
}

/** Sittings a kept database already holds from an earlier run (0 when it is new). */
async function seededRows(db) {
  const { rows } = await db.query(`SELECT count(*)::int AS n FROM tests WHERE login_id LIKE 'bt%'`);
  return rows[0].n;
}

async function benchOne(label, db, rowsWanted, budgetS) {
  console.log(`\n--- ${label} ---`);
  const applied = await migrate(db);
  const kept = await seededRows(db);
  if (kept > 0) {
    // A kept database, brought to the current schema by the migrations above: in the state seed() leaves
    // (a migration may have rewritten the table, which clears the visibility map).
    const vacuum = applied.length > 0 && process.env.SEARCH_NO_VACUUM !== '1';
    await db.exec(vacuum ? 'VACUUM ANALYZE tests' : 'ANALYZE tests');
    console.log(
      `  reusing ${kept.toLocaleString()} seeded sittings (migrated: ${applied.join(', ') || 'none'})`,
    );
  } else {
    const s = await seed(db, rowsWanted, budgetS);
    console.log(
      `  seeded ${s.rows.toLocaleString()} sittings${s.rows < FULL ? ` (SCALE ${((s.rows / FULL) * 100).toFixed(0)}% of ${FULL.toLocaleString()})` : ''} in ${s.seedS.toFixed(0)} s`,
    );
  }
  const config = { ...loadConfig({ DEMO: '0', LOG_LEVEL: 'silent', HOST: '127.0.0.1', PORT: '0' }) };
  const app = await buildApp({ config, db, logger: { level: 'error' } });
  await app.ready();
  const token = await sysadminToken(db);
  try {
    const r = process.env.SEARCH_CSV_ONLY === '1' ? null : await runCases(app, token, db);
    await csvRun(app, token, db);
    if (r) {
      console.log(
        `  search figures over the p95 goal: ${r.over} of the ${r.total} the screen asks for` +
          (r.notAsked ? ` (and ${r.notAsked} exact counts it never asks for, above)` : ''),
      );
    }
  } finally {
    await app.close();
  }
}

/** Runs the bench on a fresh database `name` of the server at `url` (kept and reused when `keep`). */
async function benchPostgres(url, name, keep) {
  const admin = await openDb({ databaseUrl: url });
  const exists = (await admin.query(`SELECT 1 FROM pg_database WHERE datname = $1`, [name])).rows.length > 0;
  if (!exists) await admin.exec(`CREATE DATABASE ${name}`);
  const u = new URL(url);
  u.pathname = `/${name}`;
  const db = await openDb({ databaseUrl: u.toString() });
  try {
    await benchOne(`PostgreSQL (${u.searchParams.get('host') ?? u.host}, database ${name})`, db, FULL, 1e9);
  } catch (e) {
    console.log(`  PostgreSQL bench failed: ${e.stack ?? e}`);
  } finally {
    await db.close();
    if (!keep) await admin.exec(`DROP DATABASE IF EXISTS ${name}`).catch(() => undefined);
    await admin.close();
  }
}

const tmp = mkdtempSync(path.join(os.tmpdir(), 'proctor-bench-search-'));
console.log(`Search bench: goal p95 ≤ ${GOAL_P95} ms; CSV ≤ ${GOAL_CSV_S} s and ≤ ${GOAL_CSV_MB} MB`);
console.log(`load average: ${load()} on ${os.availableParallelism()} cores`);
try {
  const url = process.env.DATABASE_URL || process.env.TEST_DATABASE_URL;
  if (process.env.SEARCH_SKIP_POSTGRES === '1') {
    console.log('\n(PostgreSQL skipped: SEARCH_SKIP_POSTGRES=1)');
  } else if (url) {
    const keep = process.env.SEARCH_PG_DATABASE;
    await benchPostgres(url, keep || `proctor_bench_search_${process.pid}`, !!keep);
  } else {
    // A throw-away cluster (unix socket only). shared_buffers as a server with this much data would be given
    // (PostgreSQL's 128 MB default is sized for a laptop); the rest are lib-postgres's defaults.
    let cluster = null;
    try {
      cluster = await startPostgres({ settings: { shared_buffers: '512MB' } });
      await benchPostgres(cluster.url, 'proctor_bench_search', false);
    } catch (e) {
      console.log(`\n(PostgreSQL skipped: no cluster could be started: ${e.message ?? e})`);
    } finally {
      await cluster?.stop();
    }
  }
  if (process.env.SEARCH_SKIP_PGLITE !== '1') {
    const kept = process.env.SEARCH_PGLITE_DIR;
    const dir = kept || path.join(tmp, 'pglite');
    const reused = !!kept && existsSync(dir);
    const db = await openDb({ dataDir: dir });
    try {
      await benchOne(`PGlite (${dir}${reused ? ', kept' : ''})`, db, FULL, kept ? 1e9 : PGLITE_BUDGET_S);
    } catch (e) {
      console.log(`  PGlite bench failed: ${e.stack ?? e}`);
    } finally {
      await db.close();
    }
  }
} catch (e) {
  console.log(`search bench failed: ${e.stack ?? e}`);
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
