/**
 * Entry of one AI worker process (child_process.fork from {@link ../pool}). It loads the models once at start
 * (Human, Silero, and Tesseract eng+jpn in the worker the pool names), answers identity checks and runs
 * recording analyses and looks at live stills. Identity checks overtake live stills, which overtake the frames
 * of a running analysis (see IdentityEngine's priority lock).
 */
import { exitWithParent } from './exit-with-parent';
import { analyseFile, type AnalysisMethod, type AnalysisType } from './analysis';
import { IdentityEngine } from './identity';
import { aiSettings } from './settings';
import { detectStill } from './still';
import { SileroVad } from './vad';
import type { WorkerRequest, WorkerResponse } from './worker-protocol';

// A worker never outlives the server that forked it (no orphans after kill -9 or an out-of-memory crash).
exitWithParent();

const settings = aiSettings();
const ready = (async () => {
  // The pool has one worker warm the OCR engines at start (AI_OCR_WARM=1); the others load them on demand.
  const ocr = process.env.AI_OCR_WARM !== '0';
  const [engine, vad] = await Promise.all([IdentityEngine.create(settings, { ocr }), SileroVad.create()]);
  return { engine, vad };
})();

function send(msg: WorkerResponse): void {
  process.send?.(msg);
}

ready.then(
  () => send({ type: 'ready', rss: process.memoryUsage().rss }),
  (err: unknown) => {
    send({ type: 'fatal', error: err instanceof Error ? err.message : String(err) });
    process.exit(1);
  },
);

const aborts = new Map<number, AbortController>();

process.on('message', (raw: WorkerRequest) => {
  void handle(raw);
});

async function handle(m: WorkerRequest): Promise<void> {
  if (m.op === 'cancel') {
    aborts.get(m.target)?.abort(new Error('cancelled'));
    return;
  }
  try {
    const { engine, vad } = await ready;
    let result: unknown;
    if (m.op === 'checkFace') {
      result = await engine.checkFace({ body: Buffer.from(m.image, 'base64'), type: m.type });
    } else if (m.op === 'checkIdCard') {
      result = await engine.checkIdCard(
        { body: Buffer.from(m.image, 'base64'), type: m.type },
        m.headShot ? { body: Buffer.from(m.headShot, 'base64'), type: m.headShotType ?? 'image/jpeg' } : null,
        m.expectedName,
        { idTypes: m.idTypes },
      );
    } else if (m.op === 'analyse') {
      const ac = new AbortController();
      aborts.set(m.id, ac);
      try {
        const head = m.headShot ? await engine.embeddingOf(Buffer.from(m.headShot, 'base64')) : null;
        result = await analyseFile(m.file, engine, vad, {
          ffmpegPath: m.ffmpegPath,
          method: m.method as AnalysisMethod,
          types: m.types as AnalysisType[],
          head,
          settings: settings.analysis,
          signal: ac.signal,
          onProgress: (doneMs) => send({ type: 'progress', id: m.id, doneMs }),
        });
      } finally {
        aborts.delete(m.id);
      }
    } else if (m.op === 'still') {
      result = await detectStill(
        engine,
        Buffer.from(m.image, 'base64'),
        m.headShot ? Buffer.from(m.headShot, 'base64') : null,
        m.priority,
      );
    } else if (m.op === 'stats') {
      result = { rss: process.memoryUsage().rss };
    }
    send({ type: 'result', id: m.id, ok: true, result });
  } catch (err) {
    send({ type: 'result', id: m.id, ok: false, error: err instanceof Error ? err.message : String(err) });
  }
}
