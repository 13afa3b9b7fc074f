import { createAction } from '@reduxjs/toolkit';
import type { ListenerDispatch } from '../../app/listener';
import type { RootState } from '../../app/store';
import type { ViewerChannelCredentials } from '../../api/checker';
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

/** Stops the pane's viewer and ignores its late events. */
export function stopPaneViewer(testerId: number): void {
  generation.set(testerId, (generation.get(testerId) ?? 0) + 1);
  closeViewer(paneKey(testerId));
}

type Store = { dispatch: ListenerDispatch; getState: () => RootState };

const wait = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * (Re)connects a pane's viewer with a fresh client id (media-stack.md §8.4), closing the previous one. Tries
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
        credentials: channel,
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
  starting.clear();
  closeAllViewers();
}
