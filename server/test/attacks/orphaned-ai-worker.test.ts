import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The server is killed (kill -9, or it runs out of memory): its AI worker must not stay behind as an orphan
 * holding half a gigabyte. The real worker script is forked by a stand-in parent exactly as the pool forks it;
 * the parent is then killed without any chance to clean up.
 */
const here = path.dirname(fileURLToPath(import.meta.url));
const WORKER = path.resolve(here, '../../src/lib/ai/worker.ts');
const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Polls until `check` holds, up to `ms`; the answer is whether it did. */
async function within(ms: number, check: () => boolean): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return check();
}

describe('the server process dies without shutting down', () => {
  it('takes its AI worker with it (the worker exits on its own)', async () => {
    // The stand-in parent forks the worker the way lib/ai/pool.ts forks its first one (OCR warm: Tesseract's
    // threads keep a process alive even after its IPC channel closed), prints its pid and relays 'ready'.
    const parentCode = `
      const { fork } = require('node:child_process');
      const child = fork(${JSON.stringify(WORKER)}, [], {
        execArgv: ['--import', ${JSON.stringify(TSX)}],
        env: { ...process.env, AI_OCR_WARM: '1' },
        stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
      });
      console.log('pid ' + child.pid);
      child.on('message', (m) => { if (m && m.type === 'ready') console.log('ready'); });
      setInterval(() => {}, 1000);
    `;
    const parent = spawn(process.execPath, ['-e', parentCode], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    parent.stdout.on('data', (d: Buffer) => (out += String(d)));
    const pidSeen = await within(30_000, () => /pid \d+/.test(out));
    const workerPid = Number(/pid (\d+)/.exec(out)?.[1] ?? 0);
    try {
      expect(pidSeen && workerPid > 0).toBe(true);
      // The worker has loaded its models and waits for work, as it does most of the time; then the parent
      // is killed outright.
      expect(await within(120_000, () => out.includes('ready')), 'the worker never got ready').toBe(true);
      expect(alive(workerPid)).toBe(true);
      parent.kill('SIGKILL');
      expect(await within(60_000, () => !alive(workerPid)), 'the worker is still running').toBe(true);
    } finally {
      if (alive(workerPid)) process.kill(workerPid, 'SIGKILL');
      if (parent.exitCode === null) parent.kill('SIGKILL');
    }
  }, 200_000);
});
