import { TaskAbortError } from '@reduxjs/toolkit';
import type { AppStartListening } from '../../app/listener';
import { LOCAL_STREAM_ID, getStream } from '../../media/stream-registry';
import { logger } from '../../lib/logger';
import { loggedOut } from '../session/session-slice';
import { liveStartRequested, liveStopRequested, selectLive } from './live-slice';
import { selectTester } from '@/features/tester/tester-slice';
import type { CaptureQueue } from './live-stills';
import { uniqueId } from '../../lib/unique-id';

/** Tester states (spec §4) in which stills are taken: identity checked (3) until the exam is over (7). */
export function takesStills(testerState: number): boolean {
  return testerState >= 3 && testerState < 7;
}

/**
 * Live stills while the examinee is monitored: every capture_interval seconds of the sitting (the matching
 * poll brings the server's value; 0 = off) a small JPEG of the camera is queued and the queue is sent. Through
 * a short network gap the queue keeps the newest CAPTURE_QUEUE_MAX; each still carries its age, so the server
 * knows it waited (and excuses what it shows).
 */
export function addLiveCaptureListeners(startListening: AppStartListening): void {
  startListening({
    actionCreator: liveStartRequested,
    effect: async (_action, api) => {
      if (selectLive(api.getOriginalState()).polling) return;
      const now = () => performance.now();
      // The stills' code (live-stills.ts) loads when the first still is due; a failed load is a still not
      // taken (logged below), tried again at the next one.
      let queue: CaptureQueue | null = null;
      const loop = api.fork(async (task) => {
        for (;;) {
          const s = api.getState();
          const interval = selectLive(s).captureInterval;
          try {
            const stream = getStream(LOCAL_STREAM_ID);
            const due = interval > 0 && !!stream && takesStills(selectTester(s).testerState);
            if (due || (queue?.size ?? 0) > 0) {
              const stills = await task.pause(import('./live-stills'));
              queue ??= new stills.CaptureQueue();
              if (due && stream) {
                const still = await task.pause(stills.captureLiveStill(stream, now));
                if (still) {
                  const dropped = queue.add({
                    key: uniqueId(),
                    image: still.image,
                    takenAt: still.takenAt,
                  });
                  if (dropped) {
                    logger.error(
                      'capture',
                      `the stills could not be sent for a while: dropped the oldest, taken ${Math.round(
                        (now() - dropped.takenAt) / 1000,
                      )} s ago (keeping ${stills.CAPTURE_QUEUE_MAX})`,
                    );
                  }
                }
              }
              const q = queue;
              if (q.size) await task.pause(q.flush((x) => stills.sendStill(x, now)));
            }
          } catch (e) {
            if (e instanceof TaskAbortError) throw e;
            logger.error('capture', `taking a still failed: ${String(e)}`);
          }
          // Off: look again at the next poll's settings in a few seconds.
          await task.delay((interval > 0 ? interval : 5) * 1000);
        }
      });
      await api.condition((a) => liveStopRequested.match(a) || loggedOut.match(a));
      loop.cancel();
    },
  });
}
