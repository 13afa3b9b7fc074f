import type {
  CaptureResult,
  LiveFeedResult,
  LiveFlag as WireLiveFlag,
  LivePane as WireLivePane,
} from '@contract/capture';
import { camelize, type Camelize } from '../lib/case';
import { call } from './client';

/**
 * Live stills (start-up capture_interval, capture_type, is_capture_show, ai_sensitivity): the examinee sends
 * them, the checker's console follows its examinees' stills and AI flags through one feed.
 */

/** One still for tester/capture. */
export interface CaptureUpload {
  /** JPEG as base64 (no data: prefix). */
  image: string;
  contentType: 'image/jpeg';
  /** Names the still, so a resend after a lost answer is not stored twice. */
  clientKey: string;
  /** How long ago the still was taken (the page's monotonic clock), ms. */
  ageMs: number;
}

/**
 * POST tester/capture: stores one still of the examinee's open sitting. Silent: a failure (offline) is the
 * caller's to queue and retry, and must not raise the page's error handling.
 */
export async function postCapture(
  c: CaptureUpload,
  signal?: AbortSignal,
): Promise<{ captureId: number; analysis: CaptureResult['analysis']; interval: number }> {
  const r = await call<CaptureResult>('tester/capture', {
    data: { image: c.image, content_type: c.contentType, client_key: c.clientKey, age_ms: c.ageMs },
    signal,
    silent: true,
    timeoutMs: 15_000,
  });
  return { captureId: r.capture_id, analysis: r.analysis, interval: r.interval };
}

/** An AI flag from stills, as the console shows it. */
export type LiveFlag = Camelize<WireLiveFlag>;
/** What one matched examinee's stills say now. */
export type LivePane = Camelize<WireLivePane>;
/** The feed's answer. */
export interface LiveFeed {
  version: string;
  serverTime: string;
  panes: LivePane[];
}

/**
 * GET checker/live_feed: the stills and flags of all the checker's examinees. With the last `version` and
 * `waitSeconds` > 0 it answers when something changed, or after that many seconds (a long poll).
 */
export async function getLiveFeed(
  version: string | null,
  waitSeconds: number,
  signal?: AbortSignal,
): Promise<LiveFeed> {
  const params: Record<string, unknown> = {};
  if (version) {
    params.version = version;
    params.wait = waitSeconds;
  }
  const r = await call<LiveFeedResult>('checker/live_feed', {
    params,
    signal,
    timeoutMs: (waitSeconds + 15) * 1000,
  });
  return { version: r.version, serverTime: r.server_time, panes: r.panes.map((p) => camelize(p)) };
}
