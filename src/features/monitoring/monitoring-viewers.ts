import { createAction } from '@reduxjs/toolkit';
import type { AppThunkDispatch, RootState } from '../../app/store';
import {
  pollCheckerMatchings,
  reconnectViewerChannel,
  type ViewerChannelCredentials,
} from '../../api/checker';
import { logger } from '../../lib/logger';
import type * as ViewerModule from '../../media/viewer';
import type { ViewerConnectionState } from '../../media/viewer';
import { closeAllViewers, closeViewer, getViewer, putStream, putViewer } from '../../media/viewer-registry';
import { VIEWER_START_ATTEMPTS, paneConnectionFor } from './monitoring-lifecycle';
import {
  paneConnectionChanged,
  paneStreamReceived,
  paneViewStatusChanged,
  selectPane,
} from './monitoring-slice';
import { CHANNEL_EXTRA_VIEWS, viewKey, type PaneViewId, type PaneViewStatus } from './pane-views';

/** A pane's viewer reached a state (RTCPeerConnection events, in one place: STYLE habit 7). */
export const viewerStateChanged = createAction<{
  testerId: number;
  monitorId: number;
  state: ViewerConnectionState;
}>('monitoring/viewerStateChanged');

/** A pane's viewer could not be started after every attempt (spec §4: the matching is then deleted). */
export const viewerStartFailed = createAction<{ testerId: number; monitorId: number }>(
  'monitoring/viewerStartFailed',
);

/** The registry key of a pane (its camera view). */
export const paneKey = (testerId: number) => viewKey(testerId, 'camera');

/**
 * Which signaling channel of an examinee a viewer watches: its own (`camera`: the camera and microphone, and
 * the extra views of CHANNEL_EXTRA_VIEWS on the same connection) or its paired phone's (`phone`). Everything
 * below is kept per channel, under the key of the channel's first view.
 */
export type PaneChannel = 'camera' | 'phone';
const channelKey = (testerId: number, channel: PaneChannel) => viewKey(testerId, channel);

/** The latest connect attempt per channel: callbacks of an older attempt are ignored. */
const generation = new Map<string, number>();
/** Channels (by key) whose viewer is being started right now. */
const starting = new Set<string>();

/** The newest credentials per channel (every matching poll carries them, refreshed before expiry). */
const latestCredentials = new Map<string, ViewerChannelCredentials>();
/** Per camera channel: the timer that refreshes the credentials through kvs_reconnect if polls did not. */
const refreshTimers = new Map<string, ReturnType<typeof setTimeout>>();

/** Refresh this long before the credentials expire. */
export const CREDENTIAL_REFRESH_MARGIN_MS = 120_000;

const expiresAt = (c: ViewerChannelCredentials) => {
  const t = c.expiration ? Date.parse(c.expiration) : NaN;
  return Number.isNaN(t) ? Infinity : t;
};

/**
 * Remembers a pane's newest credentials (the viewer signs its next signaling open with them) and schedules a
 * refresh shortly before they expire. When that time comes and no poll brought later ones (a long session
 * whose polls failed), kvs_reconnect gives fresh ones (which also makes the examinee reset its channel, so
 * the viewer reconnects through the usual matching_command path).
 */
export function rememberPaneCredentials(
  testerId: number,
  c: ViewerChannelCredentials,
  channel: PaneChannel = 'camera',
): void {
  const key = channelKey(testerId, channel);
  const prev = latestCredentials.get(key);
  if (prev && expiresAt(prev) > expiresAt(c)) return;
  latestCredentials.set(key, c);
  // The phone channel's credentials come with every matching poll, and with the camera's kvs_reconnect below
  // (which carries the phone's too): they need no timer of their own.
  if (channel !== 'camera') return;
  const at = expiresAt(c);
  clearTimeout(refreshTimers.get(key));
  refreshTimers.delete(key);
  if (!Number.isFinite(at)) return;
  const delay = Math.max(0, at - CREDENTIAL_REFRESH_MARGIN_MS - Date.now());
  refreshTimers.set(
    key,
    setTimeout(() => {
      refreshTimers.delete(key);
      if (!isPaneViewerActive(testerId)) {
        latestCredentials.delete(key);
        return;
      }
      const now = latestCredentials.get(key);
      if (!now || expiresAt(now) - Date.now() > CREDENTIAL_REFRESH_MARGIN_MS) {
        if (now) rememberPaneCredentials(testerId, { ...now });
        return;
      }
      reconnectViewerChannel(testerId)
        .then((m) => {
          if (m?.channel && latestCredentials.has(key)) rememberPaneCredentials(testerId, m.channel);
          if (m?.phone?.channel && latestCredentials.has(channelKey(testerId, 'phone')))
            rememberPaneCredentials(testerId, m.phone.channel, 'phone');
        })
        .catch((e: unknown) =>
          logger.error('monitoring', `credential refresh for ${testerId}: ${String(e)}`),
        );
    }, delay),
  );
}

/** The credentials a channel's viewer should sign with now. */
export function paneCredentials(
  testerId: number,
  fallback: ViewerChannelCredentials,
  channel: PaneChannel = 'camera',
): ViewerChannelCredentials {
  return latestCredentials.get(channelKey(testerId, channel)) ?? fallback;
}

/** Forgets a channel's credentials and its refresh timer (the pane, or its phone, went away). */
export function forgetPaneCredentials(testerId: number, channel: PaneChannel = 'camera'): void {
  const key = channelKey(testerId, channel);
  clearTimeout(refreshTimers.get(key));
  refreshTimers.delete(key);
  latestCredentials.delete(key);
}

/**
 * Tells the server that this checker's viewer for the examinee failed (matching.php with tester_id and
 * channel_status 'failed', spec §3). The answer's matchings are left to the next regular poll.
 */
export async function reportViewerFailed(testerId: number): Promise<void> {
  try {
    await pollCheckerMatchings({ testerId, channelStatus: 'failed' });
  } catch {
    /* recorded by the API client */
  }
}

/** The views a channel's viewer receives. */
function viewsOfChannel(channel: PaneChannel): readonly PaneViewId[] {
  return channel === 'camera' ? ['camera', ...CHANNEL_EXTRA_VIEWS] : [channel];
}

/** Stops a channel's viewer (the camera's by default) and ignores its late events. */
export function stopPaneViewer(testerId: number, channel: PaneChannel = 'camera'): void {
  const key = channelKey(testerId, channel);
  generation.set(key, (generation.get(key) ?? 0) + 1);
  // An attempt under way is abandoned with it: the channel no longer counts as active.
  starting.delete(key);
  for (const view of viewsOfChannel(channel)) closeViewer(viewKey(testerId, view));
}

type Store = { dispatch: AppThunkDispatch; getState: () => RootState };

const wait = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** A phone channel's viewer state as its view's status (its failures are the view's, not the pane's). */
function phoneStatusFor(state: ViewerConnectionState): PaneViewStatus {
  if (state === 'connected') return 'live';
  if (state === 'connecting') return 'connecting';
  return 'lost';
}

/** How often an extra view's decoded frames are counted. */
export const VIEW_FRAMES_POLL_MS = 2000;

/** Frames the receiver has decoded so far (its inbound video statistics), or null when it has none. */
async function framesDecoded(receiver: RTCRtpReceiver): Promise<number | null> {
  const stats = await receiver.getStats();
  let frames: number | null = null;
  stats.forEach((r: { type?: string; kind?: string; framesDecoded?: number }) => {
    if (r.type === 'inbound-rtp' && r.kind === 'video' && typeof r.framesDecoded === 'number')
      frames = (frames ?? 0) + r.framesDecoded;
  });
  return frames;
}

/**
 * An extra view's track: `live` while frames arrive, `waiting` while the publisher sends nothing on it (not
 * shared yet, or the share stopped). With the receiver, frames are counted every VIEW_FRAMES_POLL_MS: Chromium
 * reports a remote track unmuted although no frame ever came (a publisher without a screen yet answers the
 * screen's m-line all the same), so its mute state alone would show a black screen as live. Without one (a
 * browser without receiver statistics) the track's mute and unmute decide. Stops counting once `alive` says
 * the viewer was replaced or closed, or the track ended.
 */
export function followViewTrack(
  stream: MediaStream,
  report: (status: PaneViewStatus) => void,
  receiver?: RTCRtpReceiver,
  alive: () => boolean = () => true,
): void {
  const track = stream.getVideoTracks()[0];
  if (!track) return;
  track.addEventListener('mute', () => report('waiting'));
  track.addEventListener('ended', () => report('waiting'));
  if (typeof receiver?.getStats !== 'function') {
    report(track.muted ? 'waiting' : 'live');
    track.addEventListener('unmute', () => report('live'));
    return;
  }
  report('waiting');
  let seen = 0;
  const timer = setInterval(() => {
    if (!alive() || track.readyState === 'ended') {
      clearInterval(timer);
      return;
    }
    framesDecoded(receiver).then(
      (frames) => {
        if (frames === null || !alive()) return;
        report(frames > seen ? 'live' : 'waiting');
        seen = frames;
      },
      () => clearInterval(timer),
    );
  }, VIEW_FRAMES_POLL_MS);
}

/**
 * (Re)connects a channel's viewer (the examinee's own by default) with the ClientId the server chose for the
 * matching (else a fresh one, media-stack.md §8.4), closing the previous one. Tries VIEWER_START_ATTEMPTS
 * times; the camera channel then reports viewerStartFailed (spec §4: the matching ends), the phone channel
 * shows its view lost. Gives up silently when the pane went away.
 */
export async function connectPaneViewer(
  store: Store,
  testerId: number,
  monitorId: number,
  channel: ViewerChannelCredentials,
  which: PaneChannel = 'camera',
): Promise<void> {
  stopPaneViewer(testerId, which);
  const key = channelKey(testerId, which);
  const gen = generation.get(key)!;
  starting.add(key);
  try {
    await attemptConnect(store, testerId, monitorId, channel, which, gen);
  } finally {
    if (generation.get(key) === gen) starting.delete(key);
  }
}

let viewerLoad: Promise<typeof ViewerModule> | null = null;

/**
 * The viewer's code, loaded once, with the first pane (it then loads the KVS SDK). A failed load is a failed
 * attempt, as a failed load of the SDK is, and the next attempt loads it again.
 */
function loadViewer(): Promise<typeof ViewerModule> {
  viewerLoad ??= import('../../media/viewer').catch((e: unknown) => {
    viewerLoad = null;
    throw e;
  });
  return viewerLoad;
}

async function attemptConnect(
  store: Store,
  testerId: number,
  monitorId: number,
  channel: ViewerChannelCredentials,
  which: PaneChannel,
  gen: number,
): Promise<void> {
  const key = channelKey(testerId, which);
  const current = () =>
    generation.get(key) === gen && selectPane(store.getState(), testerId)?.monitorId === monitorId;
  const viewStatus = (view: PaneViewId, status: PaneViewStatus) => {
    if (current()) store.dispatch(paneViewStatusChanged({ testerId, monitorId, view, status }));
  };
  for (let attempt = 1; attempt <= VIEWER_START_ATTEMPTS; attempt++) {
    if (!current()) return;
    try {
      const { openViewer } = await loadViewer();
      const conn = await openViewer({
        credentials: paneCredentials(testerId, channel, which),
        // The ClientId the server chose for this matching: the examinee answers no other.
        ...(channel.clientId ? { clientId: channel.clientId } : {}),
        getCredentials: () => Promise.resolve(paneCredentials(testerId, channel, which)),
        ...(which === 'camera'
          ? {
              extraViews: CHANNEL_EXTRA_VIEWS,
              // The connection stays 'connected' on a frozen picture: the pane says so while no frame comes.
              onVideoStalled: (stalled: boolean) => {
                if (!current()) return;
                store.dispatch(
                  paneConnectionChanged({
                    testerId,
                    monitorId,
                    connection: stalled ? 'stalled' : 'live',
                    at: Date.now(),
                  }),
                );
              },
              onViewStream: (view: string, stream: MediaStream, receiver?: RTCRtpReceiver) => {
                if (!current()) return;
                const v = view as PaneViewId;
                putStream(viewKey(testerId, v), stream);
                followViewTrack(stream, (status) => viewStatus(v, status), receiver, current);
              },
            }
          : {}),
        onStateChange: (state) => {
          if (!current()) return;
          if (which !== 'camera') {
            viewStatus(which, phoneStatusFor(state));
            // A phone viewer whose connection is gone is dropped: the next matching poll starts a new one
            // while the server says the phone publishes.
            if (state === 'failed' || state === 'closed') stopPaneViewer(testerId, which);
            return;
          }
          if (state === 'connecting') {
            const pane = selectPane(store.getState(), testerId);
            // A reconnect keeps showing "reconnecting" until media flows again.
            if (pane?.connection === 'reconnecting') return;
          }
          store.dispatch(
            paneConnectionChanged({
              testerId,
              monitorId,
              connection: paneConnectionFor(state),
              at: Date.now(),
            }),
          );
          store.dispatch(viewerStateChanged({ testerId, monitorId, state }));
        },
        onStream: (stream) => {
          if (!current()) return;
          putStream(key, stream);
          if (which === 'camera') store.dispatch(paneStreamReceived({ testerId, monitorId }));
        },
      });
      if (!current()) {
        conn.close();
        return;
      }
      putViewer(key, conn);
      return;
    } catch (e) {
      logger.error(
        'monitoring',
        `${which} viewer for tester ${testerId} failed (attempt ${attempt}): ${String(e)}`,
      );
      if (attempt < VIEWER_START_ATTEMPTS) await wait(1000 * attempt);
    }
  }
  if (!current()) return;
  if (which === 'camera') store.dispatch(viewerStartFailed({ testerId, monitorId }));
  else viewStatus(which, 'lost');
}

/** Whether a channel (the camera's by default) has a viewer, or one is being started. */
export function isPaneViewerActive(testerId: number, which: PaneChannel = 'camera'): boolean {
  const key = channelKey(testerId, which);
  return starting.has(key) || getViewer(key) !== undefined;
}

/** Stops every viewer of every pane (page left, logout). */
export function stopAllPaneViewers(): void {
  generation.forEach((n, key) => generation.set(key, n + 1));
  for (const key of [...refreshTimers.keys()]) clearTimeout(refreshTimers.get(key));
  refreshTimers.clear();
  latestCredentials.clear();
  starting.clear();
  closeAllViewers();
}
