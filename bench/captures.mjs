// Live stills: capture → visible-on-checker latency (p50/p95) with five examinees sending an
// AI realtime still every 5 s, the AI workers' CPU, and whether identity checks keep their latency while the
// stills are analysed. The body is bench/captures-run.mts (TypeScript through tsx, so it can use the server's
// modules): a real server in this process (PGlite in a temp folder, the S3 stand-in, the real AI worker pool)
// answering over loopback HTTP. Prints figures; a missed goal never fails it. Exits non-zero only when the
// set-up broke (no figures), and the last line then says what it was doing.
// Usage: node bench/captures.mjs   (CAPTURE_BENCH_S=60 seconds of stills, AI_WORKERS=cores)
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { root } from '../scripts/lib.mjs';

const r = spawnSync(process.execPath, ['--import', 'tsx', path.join(root, 'bench/captures-run.mts')], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, LOG_LEVEL: 'silent' },
});
if (r.status !== 0) {
  console.log(`captures bench did not complete (exit ${r.status ?? r.signal})`);
  process.exit(1);
}
