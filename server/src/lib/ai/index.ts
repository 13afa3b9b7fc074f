import os from 'node:os';
import type { App } from '../app-types';
import { setAiProvider } from '../ai-provider';
import { appImageStore } from '../images';
import type { ObjectStorage } from '../object-storage';
import { conversionSettings, onRecordingConverted } from '../recording/conversion';
import { AnalysisQueue, setAnalysisQueue } from './analysis-queue';
import { CaptureAnalyser, setCaptureAnalyser } from './capture-analyser';
import { AiWorkerPool, PoolAiProvider } from './pool';
import { aiSettings } from './settings';

/**
 * Installs the offline AI on a built app (server start-up): the worker pool (size = cores, models
 * loaded in the background), the pool-backed identity provider for ai_auth, the recording-analysis queue,
 * the automatic analysis after an exam, and the analysis of live stills. AI_WORKERS=0 leaves the
 * "unavailable" provider in place (AI realtime and post-analysis stills then wait, stored, for an instance
 * with AI).
 */
export async function startAi(
  app: App,
  opts: { storage: () => ObjectStorage },
): Promise<{ close(): Promise<void> }> {
  const settings = aiSettings(process.env, os.availableParallelism());
  if (settings.workers === 0) {
    app.log.warn('AI_WORKERS=0: the AI identity check answers "unavailable" and no analysis runs');
    return { close: async () => undefined };
  }
  const pool = new AiWorkerPool({ size: settings.workers, log: app.log });
  pool.start();
  setAiProvider(app, new PoolAiProvider(pool));
  const ffmpegPath = conversionSettings().ffmpegPath;
  const queue = new AnalysisQueue({
    db: app.db,
    storage: opts.storage,
    images: appImageStore(app),
    log: app.log,
    batchMethod: Number(process.env.AI_BATCH_METHOD) || 1,
    runner: {
      capacity: pool.size,
      run: (job, onProgress) =>
        pool.analyse(
          {
            op: 'analyse',
            file: job.file,
            headShot: job.headShot ? job.headShot.toString('base64') : null,
            method: job.method,
            types: job.types,
            ffmpegPath,
          },
          onProgress,
        ),
    },
  });
  setAnalysisQueue(app, queue);
  // Live stills: AI realtime ones at once (after identity checks, before recording frames), AI post-analysis
  // ones once the sitting is over, with its recording analysis.
  const captures = new CaptureAnalyser({
    db: app.db,
    storage: opts.storage,
    images: appImageStore(app),
    log: app.log,
    thresholds: settings.capture,
    runner: {
      detect: (job) =>
        pool.still({
          op: 'still',
          image: job.image.toString('base64'),
          headShot: job.headShot ? job.headShot.toString('base64') : null,
          priority: job.priority,
        }),
    },
  });
  setCaptureAnalyser(app, captures);
  const off = onRecordingConverted(app.db, (id) => {
    queue
      .onConverted(id)
      .catch((err: unknown) => app.log.error({ err, recordId: id }, 'automatic analysis not queued'));
    void captures.sweep();
  });
  await queue.start();
  await captures.start();
  return {
    async close() {
      off();
      await captures.close();
      await queue.close();
      await pool.close();
    },
  };
}
