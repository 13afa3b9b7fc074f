// npm test: every layer — lint, format, typecheck, unit/component + server (Vitest), build, end-to-end
// (Playwright + Debian Chromium), scale (two instances on a throw-away PostgreSQL with the stand-ins service and
// coturn: scripts/scale.mjs). Ends with one line "N passed, N failed" summed over the layers (skipped tests are
// counted on the line before it).
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { ensureChromium, ensureDebianPackages, root, run } from './lib.mjs';

const bin = (name) => path.join(root, 'node_modules/.bin', name);
const reports = path.join(root, 'reports');
mkdirSync(reports, { recursive: true });
for (const f of ['unit.json', 'server-pg.json', 'e2e.json', 'scale.json', 'scale-server.json'])
  rmSync(path.join(reports, f), { force: true });

const only = process.argv.slice(2);
const want = (stage) => only.length === 0 || only.includes(stage);
let failedStages = [];
const stage = (name, cmd, args, opts) => {
  console.log(`\n▶ ${name}`);
  const code = run(cmd, args, { allowFail: true, ...opts });
  if (code !== 0) failedStages.push(name);
  return code;
};

if (want('lint')) {
  stage('eslint', bin('eslint'), ['.', '--max-warnings=0']);
  stage('prettier', bin('prettier'), ['--check', '.', '--log-level', 'warn']);
}
if (want('typecheck')) stage('typecheck (tsc -b)', bin('tsc'), ['-b']);
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
  stage('unit, component and server tests (vitest)', bin('vitest'), [
    'run',
    '--reporter=default',
    '--reporter=json',
    `--outputFile.json=${path.join(reports, 'unit.json')}`,
  ]);
}
// With TEST_DATABASE_URL (a PostgreSQL server) the server tests run a second time on PostgreSQL.
if (want('unit') && process.env.TEST_DATABASE_URL) {
  stage('server tests on PostgreSQL (TEST_DATABASE_URL)', bin('vitest'), [
    'run',
    '--project',
    'server',
    '--reporter=dot',
    '--reporter=json',
    `--outputFile.json=${path.join(reports, 'server-pg.json')}`,
  ]);
}
if (want('e2e')) {
  const chromium = ensureChromium();
  if (!chromium) failedStages.push('e2e (no Chromium)');
  else {
    stage('build (vite)', process.execPath, [
      path.join(root, 'node_modules/vite/bin/vite.js'),
      'build',
      '--logLevel',
      'warn',
    ]);
    // The compiled server (dist-server/, under a second): e2e/production-start.spec.ts runs it.
    stage('build (server)', process.execPath, [path.join(root, 'scripts/build-server.mjs')]);
    stage('end-to-end (playwright)', process.execPath, [path.join(root, 'scripts/e2e.mjs')], {
      env: { ...process.env, CHROMIUM_PATH: chromium },
    });
  }
}

// Several instances on one PostgreSQL (README "Running several instances"): installs postgresql and coturn
// when missing (as root), builds the SPA when needed, runs in its own loopback-only network namespace.
if (want('scale')) {
  stage('scale (two instances, PostgreSQL, stand-ins service, coturn)', process.execPath, [
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
if (failedStages.length) console.log(`\nFailed stages: ${failedStages.join(', ')}`);
if (skipped) console.log(`\n${skipped} skipped`);
console.log(`\n${passed} passed, ${failed + unreported} failed`);
process.exit(failedStages.length || failed ? 1 : 0);
