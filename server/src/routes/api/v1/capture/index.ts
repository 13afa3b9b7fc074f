import { ACTOR, Envelope } from '../../../../../../contract/common';
import {
  CAPTURE_MAX_BYTES,
  CAPTURE_TYPE,
  CaptureBody,
  CaptureResult,
  LIVE_FEED_MAX_WAIT_SECONDS,
  LiveFeedQuery,
  LiveFeedResult,
} from '../../../../../../contract/capture';
import { getCaptureAnalyser } from '../../../../lib/ai/capture-analyser';
import { aiSettings } from '../../../../lib/ai/settings';
import { ApiError } from '../../../../lib/api-error';
import type { App } from '../../../../lib/app-types';
import { captureSettingsOf, storeCapture } from '../../../../lib/live-captures';
import { buildLiveFeed, checkerSittings, liveFeedBus } from '../../../../lib/live-feed';
import { toWireTime } from '../../../../lib/management-time';
import { createObjectStorage, type ObjectStorage } from '../../../../lib/object-storage';
import { recordingSettings } from '../../../../lib/recording/settings';
import { requireOpenSitting, startupOf } from '../../../../lib/sittings/sittings';
import { requireUploadedImage } from '../../../../lib/tester/upload';

/** How often a waiting feed looks at the database for changes made by other instances (ms). */
const FEED_RECHECK_MS = 1000;

/**
 * Live stills: the examinee sends one every capture_interval seconds (tester/capture.php); the checker's console
 * follows its examinees' stills and AI flags through one feed for all its panes (checker/live_feed.php, a long
 * poll that answers as soon as a still or flag of one of them changes).
 */
export default async function captureRoutes(app: App): Promise<void> {
  const thresholds = aiSettings(process.env).capture;
  // The S3 stand-in is mounted after the routes (app.ts load order), so the store is built on first use.
  let storage: ObjectStorage | null = null;
  const store = (): ObjectStorage =>
    (storage ??= createObjectStorage({
      bucket: recordingSettings().bucket,
      local: () => (app.hasDecorator('s3local') ? app.s3local : null),
    }));

  app.post(
    '/tester/capture.php',
    {
      config: { access: [ACTOR.tester] },
      // A still of CAPTURE_MAX_BYTES as base64, and the other fields.
      bodyLimit: Math.ceil((CAPTURE_MAX_BYTES * 4) / 3) + 16 * 1024,
      schema: { body: CaptureBody, response: { 200: Envelope(CaptureResult) } },
    },
    async (request, reply) => {
      const auth = request.auth!;
      const sitting = await requireOpenSitting(app.db, auth.userId);
      if (sitting.kicked)
        throw new ApiError(403, 'kicked', 'The tester was kicked out; a manager must lift it first.');
      const settings = captureSettingsOf(startupOf(sitting));
      if (settings.interval === 0)
        throw new ApiError(409, 'capture_off', 'Stills are off for this sitting (capture_interval is 0).');
      const image = requireUploadedImage(request, request.body);
      const { row, created } = await storeCapture(app.db, store(), {
        testId: sitting.id,
        testerId: auth.userId,
        settings,
        clientKey: request.body.client_key,
        ageMs: request.body.age_ms,
        image,
      });
      if (created) {
        liveFeedBus(app.db).changed(sitting.id);
        if (row.capture_type === CAPTURE_TYPE.realtime)
          getCaptureAnalyser(app)?.realtime(Number(row.id), sitting.id, image);
      }
      return reply.ok({
        capture_id: Number(row.id),
        captured_at: toWireTime(row.captured_at)!,
        analysis:
          row.capture_type === CAPTURE_TYPE.realtime
            ? ('realtime' as const)
            : row.capture_type === CAPTURE_TYPE.post
              ? ('post' as const)
              : ('none' as const),
        interval: settings.interval,
      });
    },
  );

  app.get(
    '/checker/live_feed.php',
    {
      config: { access: [ACTOR.checker] },
      schema: { querystring: LiveFeedQuery, response: { 200: Envelope(LiveFeedResult) } },
    },
    async (request, reply) => {
      const checkerId = request.auth!.userId;
      const wait = Math.min(LIVE_FEED_MAX_WAIT_SECONDS, Number(request.query.wait ?? 0));
      let cur = await checkerSittings(app.db, checkerId);
      if (request.query.version === cur.version && wait > 0) {
        const gone = new AbortController();
        const onClose = () => gone.abort();
        // The response closes when the checker leaves or its request is aborted: stop waiting then.
        reply.raw.once('close', onClose);
        const deadline = Date.now() + wait * 1000;
        try {
          while (!gone.signal.aborted && Date.now() < deadline) {
            const tick = new AbortController();
            const stop = () => tick.abort();
            gone.signal.addEventListener('abort', stop, { once: true });
            const timer = setTimeout(stop, Math.min(FEED_RECHECK_MS, deadline - Date.now()));
            await liveFeedBus(app.db).next(
              cur.rows.map((r) => r.test_id),
              tick.signal,
            );
            clearTimeout(timer);
            gone.signal.removeEventListener('abort', stop);
            tick.abort();
            cur = await checkerSittings(app.db, checkerId);
            if (cur.version !== request.query.version) break;
          }
        } finally {
          reply.raw.off('close', onClose);
        }
      }
      return reply.ok(await buildLiveFeed(app.db, store(), thresholds, cur));
    },
  );
}
