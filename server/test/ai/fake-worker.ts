/**
 * A stand-in AI worker for the pool tests: the real protocol (worker-protocol.ts) and the real priority lock,
 * with CPU-bound busy loops instead of models, so the tests take milliseconds. The "image" of a checkFace is a
 * base64 JSON command: `{ spinMs }` burns the CPU, `{ crash: true }` exits mid-job, `{ hang: true }` never
 * answers. An analysis queues `FAKE_FRAMES` frames of `FAKE_FRAME_MS` each on the lock at low priority.
 */
import { setImmediate as tick } from 'node:timers/promises';
import { PriorityLock } from '../../src/lib/ai/priority-lock';
import type { WorkerRequest, WorkerResponse } from '../../src/lib/ai/worker-protocol';

const lock = new PriorityLock();
const frames = Number(process.env.FAKE_FRAMES ?? 20);
const frameMs = Number(process.env.FAKE_FRAME_MS ?? 25);
let framesDone = 0;

function send(msg: WorkerResponse): void {
  process.send?.(msg);
}

function spin(ms: number): void {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    // CPU-bound, like a model's forward pass.
  }
}

setTimeout(
  () => send({ type: 'ready', rss: process.memoryUsage().rss }),
  Number(process.env.FAKE_LOAD_MS ?? 0),
);

process.on('message', (m: WorkerRequest) => {
  void handle(m);
});

async function handle(m: WorkerRequest): Promise<void> {
  let result: unknown;
  if (m.op === 'checkFace') {
    const cmd = JSON.parse(Buffer.from(m.image, 'base64').toString('utf8')) as {
      spinMs?: number;
      crash?: boolean;
      hang?: boolean;
    };
    if (cmd.crash) process.exit(3);
    if (cmd.hang) return;
    result = await lock.run('high', async () => {
      spin(cmd.spinMs ?? 5);
      return { outcome: 'ok', scores: { pid: process.pid, framesDone } };
    });
  } else if (m.op === 'checkIdCard') {
    result = await lock.run('high', async () => {
      spin(5);
      return {
        outcome: 'ok',
        scores: { pid: process.pid, ocrWarmAtStart: process.env.AI_OCR_WARM === '1' ? 1 : 0 },
      };
    });
  } else if (m.op === 'analyse') {
    // Every frame is queued at once (a decoder running ahead of the detector): a first-come lock would put
    // an identity check behind all of them. Each frame yields once, as the model's awaits do.
    await Promise.all(
      Array.from({ length: frames }, () =>
        lock.run('low', async () => {
          spin(frameMs / 2);
          await tick();
          spin(frameMs / 2);
          framesDone += 1;
        }),
      ),
    );
    result = { pid: process.pid, framesDone };
  } else if (m.op === 'stats') {
    result = { rss: process.memoryUsage().rss, pid: process.pid };
  } else {
    return;
  }
  send({ type: 'result', id: m.id, ok: true, result });
}
