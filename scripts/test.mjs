// npm test: every layer — lint, format, typecheck, unit/component + server (Vitest), build, end-to-end
// (Playwright + Debian Chromium), scale (two instances on a throw-away PostgreSQL with the stand-ins service and
// coturn: scripts/scale.mjs). Ends with one line "N passed, N failed" summed over the layers (skipped tests are
// counted on the line before it).
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { ensureChromium, ensureDebianPackages, root } from './lib.mjs';

const bin = (name) => path.join(root, 'node_modules/.bin', name);
const reports = path.join(root, 'reports');
mkdirSync(reports, { recursive: true });
for (const f of ['unit.json', 'server-pg.json', 'e2e.json', 'scale.json', 'scale-server.json'])
  rmSync(path.join(reports, f), { force: true });

const only = process.argv.slice(2);
const want = (stage) => only.length === 0 || only.includes(stage);
let failedStages = [];
const started = Date.now();
/** [name, wall ms, CPU ms of the stage's processes or null] per stage, for the summary at the end. */
const timings = [];

/** CPU time (user + system, ms) of the finished child processes of this process so far; null off Linux. */
function childrenCpuMs() {
  try {
    // /proc/self/stat: fields 16 and 17 (cutime, cstime) in clock ticks (100 a second on Linux), after the
    // command name in parentheses.
    const f = readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
    return (Number(f[13]) + Number(f[14])) * 10;
  } catch {
    return null;
  }
}

/**
 * Runs one stage. `buffered` stages run beside others: their output is held and printed in one piece when they
 * end, so it does not interleave.
 */
function stage(name, cmd, args, { buffered = false, ...opts } = {}) {
  if (!buffered) console.log(`\n▶ ${name}`);
  const t0 = Date.now();
  const cpu0 = childrenCpuMs();
  return new Promise((resolve) => {
    let out = '';
    const child = spawn(cmd, args, {
      cwd: root,
      stdio: buffered ? ['ignore', 'pipe', 'pipe'] : 'inherit',
      ...opts,
    });
    if (buffered) {
      child.stdout.on('data', (d) => (out += d));
      child.stderr.on('data', (d) => (out += d));
    }
    let settled = false;
    const done = (code) => {
      if (settled) return;
      settled = true;
      if (buffered) {
        console.log(`\n▶ ${name}`);
        if (out) process.stdout.write(out.endsWith('\n') ? out : `${out}\n`);
      }
      const cpu1 = childrenCpuMs();
      // A stage's own CPU time only when nothing ran beside it (a finished neighbour would be counted too).
      timings.push([name, Date.now() - t0, buffered || cpu0 === null ? null : cpu1 - cpu0]);
      if (code !== 0) {
        console.error(`\n✖ ${name} exited with ${code}`);
        failedStages.push(name);
      }
      resolve(code);
    };
    child.on('error', (e) => {
      out += `${e.message}\n`;
      done(1);
    });
    child.on('close', (code, signal) => done(code ?? (signal ? 1 : 0)));
  });
}

/** Stages run one after another. */
async function serial(...steps) {
  for (const s of steps) await s();
}

/** A group of stages run beside each other (each lane in order); its wall and CPU time are summed up too. */
async function beside(name, lanes) {
  const t0 = Date.now();
  const cpu0 = childrenCpuMs();
  await Promise.all(lanes.map((lane) => lane()));
  const cpu1 = childrenCpuMs();
  timings.push([`${name} (together)`, Date.now() - t0, cpu0 === null ? null : cpu1 - cpu0]);
}

// Lint, format, typecheck and the builds the end-to-end layer needs: each is mostly one busy process, so on a
// machine of two or more cores they run beside each other (none writes what another reads: eslint and prettier
// ignore dist/ and dist-server/, tsc -b emits nothing).
const chromium = want('e2e') ? ensureChromium() : null;
if (want('e2e') && !chromium) failedStages.push('e2e (no Chromium)');
const lanes = [];
if (want('lint'))
  lanes.push(() => stage('eslint', bin('eslint'), ['.', '--max-warnings=0'], { buffered: true }));
if (want('lint') || want('typecheck'))
  lanes.push(() =>
    serial(
      ...(want('lint')
        ? [
            () =>
              stage('prettier', bin('prettier'), ['--check', '.', '--log-level', 'warn'], { buffered: true }),
          ]
        : []),
      ...(want('typecheck')
        ? [() => stage('typecheck (tsc -b)', bin('tsc'), ['-b'], { buffered: true })]
        : []),
    ),
  );
if (chromium)
  lanes.push(() =>
    serial(
      () =>
        stage(
          'build (vite)',
          process.execPath,
          [path.join(root, 'node_modules/vite/bin/vite.js'), 'build', '--logLevel', 'warn'],
          { buffered: true },
        ),
      // The compiled server (dist-server/, under a second): e2e/production-start.spec.ts runs it.
      () =>
        stage('build (server)', process.execPath, [path.join(root, 'scripts/build-server.mjs')], {
          buffered: true,
        }),
    ),
  );
if (lanes.length > 1) await beside('lint, typecheck and builds', lanes);
else if (lanes.length) await lanes[0]();

if (want('unit')) {
  // The AI tests (server/test/ai) make their fixtures with these at run time.
  ensureDebianPackages({
    ffmpeg: 'ffmpeg',
    // /usr/bin/convert, not just any convert on PATH: some machines have a PNG-only stand-in in /usr/local/bin.
    '/usr/bin/convert': 'imagemagick',
    'espeak-ng': 'espeak-ng',
    sox: 'sox',
    '/usr/lib/python3/dist-packages/skimage/data/astronaut.png': 'python3-skimage',
    '/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc': 'fonts-noto-cjk',
  });
  await stage('unit, component and server tests (vitest)', bin('vitest'), [
    'run',
    '--reporter=default',
    '--reporter=json',
    `--outputFile.json=${path.join(reports, 'unit.json')}`,
  ]);
}
// With TEST_DATABASE_URL (a PostgreSQL server) the server tests run a second time on PostgreSQL.
if (want('unit') && process.env.TEST_DATABASE_URL) {
  await stage('server tests on PostgreSQL (TEST_DATABASE_URL)', bin('vitest'), [
    'run',
    '--project',
    'server',
    '--reporter=dot',
    '--reporter=json',
    `--outputFile.json=${path.join(reports, 'server-pg.json')}`,
  ]);
}
if (chromium) {
  await stage('end-to-end (playwright)', process.execPath, [path.join(root, 'scripts/e2e.mjs')], {
    env: { ...process.env, CHROMIUM_PATH: chromium },
  });
}

// Several instances on one PostgreSQL (README "Running several instances"): installs postgresql and coturn
// when missing (as root), builds the SPA when needed, runs in its own loopback-only network namespace.
if (want('scale')) {
  await stage('scale (two instances, PostgreSQL, stand-ins service, coturn)', process.execPath, [
    path.join(root, 'scripts/scale.mjs'),
  ]);
}

let passed = 0;
let failed = 0;
let skipped = 0;
for (const name of ['unit.json', 'server-pg.json', 'scale-server.json']) {
  const file = path.join(reports, name);
  if (!existsSync(file)) continue;
  const u = JSON.parse(readFileSync(file, 'utf8'));
  passed += u.numPassedTests;
  failed += u.numFailedTests;
  skipped += u.numPendingTests + (u.numTodoTests ?? 0);
}
for (const name of ['e2e.json', 'scale.json']) {
  const file = path.join(reports, name);
  if (!existsSync(file)) continue;
  const e = JSON.parse(readFileSync(file, 'utf8'));
  passed += e.stats.expected;
  failed += e.stats.unexpected + (e.stats.flaky ?? 0);
  skipped += e.stats.skipped;
}
// A stage that failed without reporting tests (lint, typecheck, a runner that crashed before writing its
// report) still counts as a failure.
const reportOf = (s) =>
  s.startsWith('unit')
    ? 'unit.json'
    : s.startsWith('end-to-end')
      ? 'e2e.json'
      : s.startsWith('server tests on')
        ? 'server-pg.json'
        : s.startsWith('scale')
          ? 'scale.json'
          : null;
const unreported = failedStages.filter((s) => {
  const report = reportOf(s);
  return !report || !existsSync(path.join(reports, report));
}).length;
const seconds = (ms) => (ms === null ? '' : `${(ms / 1000).toFixed(1)} s`);
console.log('\nStage times (wall, and CPU of its processes where it ran alone or as a group):');
for (const [name, wall, cpu] of timings)
  console.log(
    `  ${seconds(wall).padStart(8)}  ${(cpu === null ? '' : `cpu ${seconds(cpu)}`).padEnd(13)} ${name}`,
  );
console.log(`  ${seconds(Date.now() - started).padStart(8)}  ${''.padEnd(13)} total`);
if (failedStages.length) console.log(`\nFailed stages: ${failedStages.join(', ')}`);
if (skipped) console.log(`\n${skipped} skipped`);
console.log(`\n${passed} passed, ${failed + unreported} failed`);
process.exit(failedStages.length || failed ? 1 : 0);
