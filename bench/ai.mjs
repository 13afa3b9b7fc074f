// AI figures: identity-check latency (face; ID card + OCR), analysis time per minute of video per
// core, login latency with the workers idle and while they analyse, memory per worker. Runs the real worker
// pool (server/src/lib/ai) through tsx; fixtures are made in a temp folder as in server/test/ai. Prints
// figures, never fails the run.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { root } from '../scripts/lib.mjs';

const r = spawnSync(process.execPath, ['--import', 'tsx', path.join(root, 'bench/ai-run.mts')], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, LOG_LEVEL: 'silent' },
});
if (r.status !== 0) console.log(`ai bench did not complete (exit ${r.status ?? r.signal})`);
