import { TaskAbortError } from '@reduxjs/toolkit';
import type { AppStartListening } from '../../app/listener';
import { isApiError, NETWORK_ERROR_STATUS } from '../../api/api-error';
import * as matchingApi from '../../api/matching';
import { postMessage } from '../../api/messages';
import { disconnectOnUnload, postTesterStatus } from '../../api/tester';
import type { ExtraStream, MasterHandle } from '../../media/master';
import { kvsChannelOf } from '../../media/master-types';
import {
  LOCAL_STREAM_ID,
  SCREEN_FRAME_RATE,
  SCREEN_STREAM_ID,
  dropObject,
  getStream,
  putObject,
  releaseStream,
} from '../../media/stream-registry';
import { i18next } from '../../i18n';
import { loggedOut } from '../session/session-slice';
import { addLiveCaptureListeners } from './live-capture';
import { testerStateChanged, selectTester } from '../tester/tester-slice';
import {
  channelResetRequested,
  disconnectFlagReset,
  liveStartRequested,
  liveStopped,
  liveStopRequested,
  masterStatusChanged,
  matchingPolled,
  networkErrorOccurred,
  signalingLost,
  viewersChanged,
  selectLive,
} from './live-slice';

/**
 * The live copy of the shared screen: at most 1.2 Mbit/s and the capture's frame rate, so the screen costs the
 * examinee's upstream a fraction of the camera's (README "The wider view" has the figures).
 */
export const SCREEN_LIVE: ExtraStream = {
  streamId: SCREEN_STREAM_ID,
  maxBitrate: 1_200_000,
  maxFramerate: SCREEN_FRAME_RATE,
};

/** Registry key of the running master. */
export const MASTER_KEY = 'kvs-master';
/** Spec §4: stop waits up to 10 s for pending requests. */
export const STOP_WAIT_MS = 10_000;

const isNetworkError = (e: unknown) => isApiError(e) && e.status === NETWORK_ERROR_STATUS;

/** Start-up capture_interval (0–3600 s, 0 = off) and capture_type (0–2) of the sitting, as the server bound them. */
export function captureSettingsOf(p: Record<string, unknown>): { interval: number; type: number } {
  const int = (v: unknown) => (typeof v === 'number' ? v : typeof v === 'string' ? Number(v) : NaN);
  const interval = int(p.capture_interval);
  const type = int(p.capture_type);
  return {
    interval: Number.isInteger(interval) && interval > 0 && interval <= 3600 ? interval : 0,
    type: type === 1 || type === 2 ? type : 0,
  };
}

/**
 * The live channel (spec §4): the matching poll every matchingTimeout seconds with channel status and
 * stats, the KVS master started when the matching carries a valid signaling channel, matching command 1,
 * signaling loss → delete_matching, the disconnect flag, and teardown on stop, logout and kick-out.
 */
export function addLiveListeners(startListening: AppStartListening): void {
  startListening({
    actionCreator: liveStartRequested,
    effect: async (action, api) => {
      // One loop per session: a second start while it runs only refreshes the parameters.
      if (selectLive(api.getOriginalState()).polling) return;
      const testerId = action.payload.testerId;
      let master: MasterHandle | null = null;
      let starting = false;
      let stopped = false;
      let ackReset = false;
      let inflight: Promise<unknown> | null = null;
      // The matched checker's viewer ClientId: the only viewer the master answers.
      let allowedViewer: string | null | undefined = null;
      const timeoutMs = () => selectLive(api.getState()).matchingTimeout * 1000;

      // Signaling could not be (re)opened. A master that lost it after being live is kept, peers and all (media
      // flows without signaling, and only it can close a removed checker's peer): the next poll that brings a
      // channel reconnects it (below). Dropping it would leave its peers sending to the checker, unmanaged.
      const handleLost = async () => {
        if (stopped) return;
        api.dispatch(signalingLost());
        // spec §4: signaling start-up retried 3 times, then the matching is deleted.
        try {
          await matchingApi.deleteMatching(testerId);
        } catch (e) {
          if (isNetworkError(e)) api.dispatch(networkErrorOccurred());
        }
      };

      const start = async (channel: matchingApi.SignalingChannel) => {
        starting = true;
        try {
          // The camera's code, then the publisher's, load with the first channel (the publisher then loads the KVS
          // SDK); a failed load is a failed start (below), as a failed load of the SDK is.
          if (!getStream(LOCAL_STREAM_ID)) await (await import('../../media/devices')).acquireLocalMedia();
          const { startMaster } = await import('../../media/master');
          const handle = await startMaster({
            channel: kvsChannelOf(channel),
            streamId: LOCAL_STREAM_ID,
            // The shared screen (the wider view) goes to the checker on the same connection, whenever it is shared.
            extraStreams: [SCREEN_LIVE],
            allowedViewer: () => allowedViewer,
            refreshCredentials: async () => {
              const m = await matchingApi.kvsReconnect(testerId);
              const ch = m?.signalingChannel;
              return matchingApi.isValidChannel(ch) ? kvsChannelOf(ch) : null;
            },
            callbacks: {
              onStatus: (s) => {
                if (!stopped) api.dispatch(masterStatusChanged(s));
              },
              onViewers: (ids) => {
                if (!stopped) api.dispatch(viewersChanged(ids));
              },
              onLost: () => void handleLost(),
            },
          });
          if (stopped) {
            await handle.stop(0);
            return;
          }
          master = handle;
          putObject(MASTER_KEY, handle);
        } catch {
          await handleLost();
        } finally {
          starting = false;
        }
      };

      const pollOnce = async () => {
        const stats = master?.stats();
        const body: matchingApi.PollMatchingArgs = {
          testerId,
          channelStatus: master && stats?.status === 'live' ? 'open' : 'close',
          stats: { viewers: stats?.viewers ?? 0, master: stats?.status ?? 'idle', peers: stats?.peers ?? {} },
        };
        if (ackReset) body.matchingCommand = 1;
        const p = matchingApi.pollMatching(body);
        inflight = p;
        const r = await p;
        if (body.matchingCommand === 1) ackReset = false;
        const m = r.matchings[0] ?? null;
        allowedViewer = m ? m.viewerClientId : null;
        master?.matchedViewerChanged();
        api.dispatch(
          matchingPolled({
            matchingTimeout: r.matchingTimeout,
            monitorId: m?.monitorId ?? null,
            checkerId: m?.checkerId ?? null,
            matchingStatus: m?.matchingStatus ?? 0,
            channelName: m?.signalingChannel?.channelName ?? null,
            ...(m ? { capture: captureSettingsOf(m.startupParameters), phone: m.phone ?? null } : {}),
          }),
        );
        if (m && m.testerStatus !== selectTester(api.getState()).testerState && m.testerStatus > 0) {
          api.dispatch(testerStateChanged(m.testerStatus));
        }
        if (m && m.checkerId !== null && m.testerStatus === 1) {
          // spec §4: login → matched once a checker is assigned (the checker accepts identity from 2).
          try {
            api.dispatch(testerStateChanged((await postTesterStatus(2)).status));
          } catch {
            // Retried on the next poll.
          }
        }
        const channel = m?.signalingChannel ?? null;
        if (m?.matchingCommand === 1 && master) {
          // spec §4 matching command 1: reset the signaling channel, then acknowledge it.
          api.dispatch(channelResetRequested());
          const old = master as MasterHandle;
          master = null;
          dropObject(MASTER_KEY);
          await old.stop(timeoutMs());
          ackReset = true;
        }
        if (matchingApi.isValidChannel(channel)) {
          if (master && master.channelName !== channel.channelName) {
            const old = master as MasterHandle;
            master = null;
            await old.stop(timeoutMs());
          }
          // The server answers again after signaling was lost (a restart, a network cut): reopen it.
          if (master && master.stats().status === 'lost') void master.reconnect();
          else if (!master && !starting) void start(channel);
        } else if (master && (!m || !channel)) {
          // No channel any more (kicked, not proctored, sitting closed): stop publishing.
          const old = master as MasterHandle;
          master = null;
          dropObject(MASTER_KEY);
          await old.stop(timeoutMs());
        }
      };

      // A window closed (or reloaded) while transmitting: the checker is told at once (kick_out DISCONNECT).
      // Not during a logout (an examinee's exit that ends the session): its own request (logout, self kick-out)
      // goes as the page goes, and the checker is to see what the examinee did, not "closed, maybe reloading".
      const onPageHide = (e: PageTransitionEvent) => {
        if (!e.persisted && api.getState().session.status !== 'loggingOut') disconnectOnUnload();
      };
      window.addEventListener('pagehide', onPageHide);

      const loop = api.fork(async (task) => {
        for (;;) {
          try {
            await task.pause(pollOnce());
          } catch (e) {
            if (e instanceof TaskAbortError) throw e;
            if (isNetworkError(e)) api.dispatch(networkErrorOccurred());
          }
          await task.delay(timeoutMs());
        }
      });

      const end = await api.condition((a) => liveStopRequested.match(a) || loggedOut.match(a));
      void end;
      window.removeEventListener('pagehide', onPageHide);
      stopped = true;
      loop.cancel();
      // spec §4: stop waits up to 10 s for pending requests; the master close waits 2 × matchingTimeout.
      if (inflight)
        await Promise.race([
          (inflight as Promise<unknown>).catch(() => undefined),
          api.delay(STOP_WAIT_MS),
        ]).catch(() => undefined);
      const m = master as MasterHandle | null;
      master = null;
      dropObject(MASTER_KEY);
      if (m) await m.stop(2 * timeoutMs()).catch(() => undefined);
      releaseStream(LOCAL_STREAM_ID);
      api.dispatch(liveStopped());
    },
  });

  addLiveCaptureListeners(startListening);

  // spec §4 disconnect flag: a network error sets it and tells the proctor by chat; it resets after
  // matchingTimeout seconds (a successful poll clears it earlier).
  startListening({
    actionCreator: networkErrorOccurred,
    effect: async (_action, api) => {
      api.cancelActiveListeners();
      const live = selectLive(api.getOriginalState());
      const tester = selectTester(api.getOriginalState());
      const testerId = live.testerId ?? tester.testerId;
      if (!tester.disconnected && testerId !== null) {
        postMessage({
          testerId,
          messageType: 3,
          message: i18next.t('live:chat.disconnected'),
        }).catch(() => undefined);
      }
      await api.delay(live.matchingTimeout * 1000);
      api.dispatch(disconnectFlagReset());
    },
  });
}
