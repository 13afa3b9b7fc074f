// End-to-end runner: Playwright drives Debian Chromium against the real server (started by Playwright's
// webServer). When possible everything runs inside a loopback-only network namespace (unshare -n) so that
// WebRTC media and all test traffic stay on 127.0.0.1 (research/media-stack.md §5, §10).
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { root } from './lib.mjs';

const pw = path.join(root, 'node_modules/.bin/playwright');
const args = ['test', ...process.argv.slice(2)];
const canUnshare = spawnSync('unshare', ['-n', 'true']).status === 0;
let r;
if (canUnshare && !process.env.E2E_NO_NETNS) {
  const quoted = [pw, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  r = spawnSync('unshare', ['-n', 'sh', '-c', `ip link set lo up && exec ${quoted}`], {
    stdio: 'inherit',
    cwd: root,
  });
} else {
  console.log(
    'No network namespace available (needs root or user namespaces): running on the host loopback; WebRTC tests are skipped.',
  );
  r = spawnSync(pw, args, { stdio: 'inherit', cwd: root, env: { ...process.env, E2E_NO_NETNS: '1' } });
}
process.exit(r.status ?? 1);
