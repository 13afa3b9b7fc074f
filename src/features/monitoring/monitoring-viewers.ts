import { createAction } from '@reduxjs/toolkit';
import type { ListenerDispatch } from '../../app/listener';
import type { RootState } from '../../app/store';
import {
  pollCheckerMatchings,
  reconnectViewerChannel,
  type ViewerChannelCredentials,
} from '../../api/checker';
import { logger } from '../../lib/logger';
import { openViewer, type ViewerConnectionState } from '../../media/viewer';
import { closeAllViewers, closeViewer, getViewer, putStream, putViewer } from '../../media/viewer-registry';
import { VIEWER_START_ATTEMPTS, paneConnectionFor } from './monitoring-lifecycle';
import { paneConnectionChanged, paneStreamReceived, selectPane } from './monitoring-slice';

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

/** The registry key of a pane. */
export const paneKey = (testerId: number) => String(testerId);

/** The latest connect attempt per pane: callbacks of an older attempt are ignored. */
const generation = new Map<number, number>();

/** The newest channel credentials per pane (every matching poll carries them, refreshed before expiry). */
const latestCredentials = new Map<number, ViewerChannelCredentials>();
/** Per pane: the timer that refreshes the credentials through kvs_reconnect if polls did not. */
const refreshTimers = new Map<number, ReturnType<typeof setTimeout>>();

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
export function rememberPaneCredentials(testerId: number, c: ViewerChannelCredentials): void {
  const prev = latestCredentials.get(testerId);
  if (prev && expiresAt(prev) > expiresAt(c)) return;
  latestCredentials.set(testerId, c);
  const at = expiresAt(c);
  clearTimeout(refreshTimers.get(testerId));
  refreshTimers.delete(testerId);
  if (!Number.isFinite(at)) return;
  const delay = Math.max(0, at - CREDENTIAL_REFRESH_MARGIN_MS - Date.now());
  refreshTimers.set(
    testerId,
    setTimeout(() => {
      refreshTimers.delete(testerId);
      if (!isPaneViewerActive(testerId)) {
        latestCredentials.delete(testerId);
        return;
      }
      const now = latestCredentials.get(testerId);
      if (!now || expiresAt(now) - Date.now() > CREDENTIAL_REFRESH_MARGIN_MS) {
        if (now) rememberPaneCredentials(testerId, { ...now });
        return;
      }
      reconnectViewerChannel(testerId)
        .then((m) => {
          if (m?.channel && latestCredentials.has(testerId)) rememberPaneCredentials(testerId, m.channel);
        })
        .catch((e: unknown) =>
          logger.error('monitoring', `credential refresh for ${testerId}: ${String(e)}`),
        );
    }, delay),
  );
}

/** The credentials a pane's viewer should sign with now. */
export function paneCredentials(
  testerId: number,
  fallback: ViewerChannelCredentials,
): ViewerChannelCredentials {
  return latestCredentials.get(testerId) ?? fallback;
}

/** Forgets a pane's credentials and its refresh timer (the pane went away). */
export function forgetPaneCredentials(testerId: number): void {
  clearTimeout(refreshTimers.get(testerId));
  refreshTimers.delete(testerId);
  latestCredentials.delete(testerId);
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

/** Stops the pane's viewer and ignores its late events. */
export function stopPaneViewer(testerId: number): void {
  generation.set(testerId, (generation.get(testerId) ?? 0) + 1);
  closeViewer(paneKey(testerId));
}

type Store = { dispatch: ListenerDispatch; getState: () => RootState };

const wait = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * (Re)connects a pane's viewer with the ClientId the server chose for the matching (else a fresh one,
 * media-stack.md §8.4), closing the previous one. Tries
 * VIEWER_START_ATTEMPTS times, then reports viewerStartFailed. Gives up silently when the pane went away.
 */
export async function connectPaneViewer(
  store: Store,
  testerId: number,
  monitorId: number,
  channel: ViewerChannelCredentials,
): Promise<void> {
  stopPaneViewer(testerId);
  const gen = generation.get(testerId)!;
  starting.add(testerId);
  try {
    await attemptConnect(store, testerId, monitorId, channel, gen);
  } finally {
    if (generation.get(testerId) === gen) starting.delete(testerId);
  }
}

async function attemptConnect(
  store: Store,
  testerId: number,
  monitorId: number,
  channel: ViewerChannelCredentials,
  gen: number,
): Promise<void> {
  const current = () =>
    generation.get(testerId) === gen && selectPane(store.getState(), testerId)?.monitorId === monitorId;
  const key = paneKey(testerId);
  for (let attempt = 1; attempt <= VIEWER_START_ATTEMPTS; attempt++) {
    if (!current()) return;
    try {
      const conn = await openViewer({
        credentials: paneCredentials(testerId, channel),
        // The ClientId the server chose for this matching: the examinee answers no other.
        ...(channel.clientId ? { clientId: channel.clientId } : {}),
        getCredentials: () => Promise.resolve(paneCredentials(testerId, channel)),
        onStateChange: (state) => {
          if (!current()) return;
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
          store.dispatch(paneStreamReceived({ testerId, monitorId }));
        },
      });
      if (!current()) {
        conn.close();
        return;
      }
      putViewer(key, conn);
      return;
    } catch (e) {
      logger.error('monitoring', `viewer for tester ${testerId} failed (attempt ${attempt}): ${String(e)}`);
      if (attempt < VIEWER_START_ATTEMPTS) await wait(1000 * attempt);
    }
  }
  if (current()) store.dispatch(viewerStartFailed({ testerId, monitorId }));
}

/** Panes whose viewer is being started right now. */
const starting = new Set<number>();

/** Whether the pane has a viewer, or one is being started. */
export function isPaneViewerActive(testerId: number): boolean {
  return starting.has(testerId) || getViewer(paneKey(testerId)) !== undefined;
}

/** Stops every pane's viewer (page left, logout). */
export function stopAllPaneViewers(): void {
  for (const id of [...generation.keys()]) stopPaneViewer(id);
  for (const id of [...latestCredentials.keys()]) forgetPaneCredentials(id);
  starting.clear();
  closeAllViewers();
}
