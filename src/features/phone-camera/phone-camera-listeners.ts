import type { AppStartListening } from '../../app/listener';
import { isApiError, NETWORK_ERROR_STATUS } from '../../api/api-error';
import { isValidChannel, type SignalingChannel } from '../../api/matching';
import {
  endPhoneRecording,
  getPhoneRecordingCredentials,
  leavePhone,
  leavePhoneOnUnload,
  pairPhone,
  pollPhone,
  startPhoneRecording,
  type PhonePoll,
  type PhoneSession,
} from '../../api/phone';
import { changeLanguage } from '../../i18n';
import { logger } from '../../lib/logger';
import { takePairingCode } from '../../lib/phone-link';
import { acquirePhoneCamera, PHONE_STREAM_ID } from '../../media/devices';
import type { MasterHandle, VideoLimits } from '../../media/master';
import { kvsChannelOf } from '../../media/master-types';
import { getStream, releaseStream } from '../../media/stream-registry';
import { keepScreenAwake } from '../../platform/wake-lock';
import {
  phoneCameraChosen,
  phoneCameraFailed,
  phoneCameraStarted,
  phoneConnectionChanged,
  phoneEnded,
  phonePageOpened,
  phonePaired,
  phonePairingFailed,
  phonePairingRetried,
  phonePollIntervalChanged,
  phoneRecordingChanged,
  phoneReplaced,
  phoneStopRequested,
  selectPhoneCamera,
} from './phone-camera-slice';
import { PhoneRecording } from './phone-recording';
import { uniqueId } from '../../lib/unique-id';

/**
 * The live copy of the phone's camera: at most 1 Mbit/s. The phone films the room at 640 × 480
 * (VIDEO_CONSTRAINTS), which VP8 and VP9 show cleanly at about that rate, and the checker sees it beside the camera
 * (small unless enlarged); without a cap libwebrtc lets it climb to about 2.5 Mbit/s of the phone's upstream,
 * which on the same home Wi-Fi is the computer's upstream too (README "The wider view" has the figures). The
 * recording is not affected: it keeps the sitting's video quality level.
 */
export const PHONE_LIVE: VideoLimits = { maxBitrate: 1_000_000 };

/** Session storage key of the phone's session: a reload of the phone's page goes on without a new code. */
export const PHONE_SESSION_KEY = 'phoneCamera';

interface SavedPhone {
  token: string;
  examUserName: string;
  loginId: string;
  testName: string;
  matchingTimeout: number;
}

function savePhone(p: SavedPhone): void {
  try {
    sessionStorage.setItem(PHONE_SESSION_KEY, JSON.stringify(p));
  } catch {
    // Storage blocked: the phone then lasts for this page only.
  }
}

function restorePhone(): SavedPhone | null {
  try {
    const v = JSON.parse(sessionStorage.getItem(PHONE_SESSION_KEY) ?? 'null') as Partial<SavedPhone> | null;
    if (!v || typeof v.token !== 'string' || !v.token) return null;
    return {
      token: v.token,
      examUserName: String(v.examUserName ?? ''),
      loginId: String(v.loginId ?? ''),
      testName: String(v.testName ?? ''),
      matchingTimeout: Number(v.matchingTimeout) > 0 ? Number(v.matchingTimeout) : 5,
    };
  } catch {
    return null;
  }
}

function forgetPhone(): void {
  try {
    sessionStorage.removeItem(PHONE_SESSION_KEY);
  } catch {
    /* ignore */
  }
}

/**
 * The phone's page: spends the code it was opened with (or finds its session after a reload), opens the chosen
 * camera, then every poll interval tells the server how publishing goes and publishes the camera as MASTER of
 * the sitting's phone channel, answering only the matched checker's viewer. A switch of camera replaces the
 * video track in place. The page ends when the sitting ends, when another phone replaces it, or on stop; a page
 * that goes away says so (phone/leave, keepalive) so the checker sees the phone lost at once.
 */
export function addPhoneCameraListeners(startListening: AppStartListening): void {
  // The phone's session token and the code of a pairing that could not reach the server: runtime state of
  // this page, not Redux state (the token is a credential).
  let token: string | null = null;
  let retryCode: string | null = null;
  let master: MasterHandle | null = null;
  // The phone's recording while it runs (a camera switch ends it; the next poll starts the next one).
  let recording: PhoneRecording | null = null;

  const pair = async (code: string): Promise<PhoneSession> => {
    const s = await pairPhone(code);
    token = s.accessToken;
    savePhone({
      token: s.accessToken,
      examUserName: s.examUserName,
      loginId: s.loginId,
      testName: s.testName,
      matchingTimeout: s.matchingTimeout,
    });
    return s;
  };

  startListening({
    matcher: (a) => phonePageOpened.match(a) || phonePairingRetried.match(a),
    effect: async (action, api) => {
      const code = phonePairingRetried.match(action) ? retryCode : takePairingCode();
      retryCode = null;
      if (code) {
        try {
          const s = await pair(code);
          // The sitting's language, whatever the link said.
          await changeLanguage(s.lang).catch(() => undefined);
          api.dispatch(
            phonePaired({
              examUserName: s.examUserName,
              loginId: s.loginId,
              testName: s.testName,
              matchingTimeout: s.matchingTimeout,
            }),
          );
        } catch (e) {
          const network = isApiError(e) && e.status === NETWORK_ERROR_STATUS;
          if (network) retryCode = code;
          api.dispatch(phonePairingFailed(network ? 'network' : 'invalid'));
        }
        return;
      }
      // A reload of a paired page: its session goes on (a new code would replace it needlessly).
      const saved = restorePhone();
      if (!saved) {
        api.dispatch(phonePairingFailed('invalid'));
        return;
      }
      token = saved.token;
      api.dispatch(phonePaired(saved));
    },
  });

  // A paired page that does not publish yet (a camera to choose, one opening, or one refused) still asks the
  // server every poll interval, as it does once publishing: a sitting that ended meanwhile, or another phone
  // paired in its place, ends this page too, instead of waiting until a camera is picked (a page reloaded on
  // its way to the choice would otherwise sit there after the exam).
  startListening({
    actionCreator: phonePaired,
    effect: async (_action, api) => {
      api.cancelActiveListeners();
      const waiting = () => {
        const step = selectPhoneCamera(api.getState()).step;
        return step === 'choose' || step === 'starting' || step === 'cameraFailed';
      };
      for (;;) {
        await api.delay(selectPhoneCamera(api.getState()).matchingTimeout * 1000);
        const bearer = token;
        if (!waiting() || !bearer) return;
        try {
          const r = await pollPhone(bearer, { channelStatus: 'close', camera: null });
          api.dispatch(phonePollIntervalChanged(r.matchingTimeout));
          if (r.sitting !== 'ended' || !waiting()) continue;
          api.dispatch(phoneEnded('sittingEnded'));
        } catch (e) {
          // Network gone or a server error: asked again next interval.
          if (!isApiError(e) || e.status !== 401 || !waiting()) continue;
          if (e.code === 'phone_replaced') api.dispatch(phoneReplaced());
          else api.dispatch(phoneEnded('sessionEnded'));
        }
        // The page is done with this sitting: a reload must not pick the session up again.
        forgetPhone();
        token = null;
        return;
      }
    },
  });

  startListening({
    actionCreator: phoneCameraChosen,
    effect: async (action, api) => {
      api.cancelActiveListeners();
      const running = selectPhoneCamera(api.getOriginalState()).step === 'running';
      const opened = await acquirePhoneCamera(action.payload);
      if (!opened.ok) {
        api.dispatch(phoneCameraFailed(opened.code));
        return;
      }
      if (running) {
        await master?.replaceVideoTrack(opened.track);
        // The recorder held the other camera's stream: that recording ends here, the next poll starts anew.
        await recording?.finish();
      } else api.dispatch(phoneCameraStarted());
    },
  });

  startListening({
    actionCreator: phoneCameraStarted,
    effect: async (_action, api) => {
      if (!token) return;
      const bearer = token;
      // This publishing run: its polls and its leave carry it, so that a poll still on its way when the page goes
      // cannot bring the phone back after the leave.
      const run = uniqueId();
      let starting = false;
      let fresh = true;
      // The matched checker's viewer ClientId: the only viewer the phone answers (null: nobody watches now).
      let allowedViewer: string | null = null;
      const releaseWakeLock = keepScreenAwake();
      const rec = new PhoneRecording(
        {
          start: (mimeType) => startPhoneRecording(bearer, mimeType),
          refresh: (recordId) => getPhoneRecordingCredentials(bearer, recordId),
          end: (recordId, parts) => endPhoneRecording(bearer, recordId, parts),
        },
        (state) => api.dispatch(phoneRecordingChanged(state)),
      );
      recording = rec;
      const intervalMs = () => selectPhoneCamera(api.getState()).matchingTimeout * 1000;

      const stopMaster = async () => {
        const m = master;
        master = null;
        if (m) await m.stop(2000).catch(() => undefined);
      };

      const connection = () => {
        const stats = master?.stats();
        return {
          connection: (master && stats?.status !== 'live' ? 'reconnecting' : 'connected') as
            'connected' | 'reconnecting',
          watched: (stats?.viewers ?? 0) > 0,
        };
      };

      const start = async (channel: SignalingChannel) => {
        starting = true;
        try {
          // The publisher's code loads with the first channel (it loads the KVS SDK itself).
          const { startMaster } = await import('../../media/master');
          const handle = await startMaster({
            channel: kvsChannelOf(channel),
            streamId: PHONE_STREAM_ID,
            videoLimits: PHONE_LIVE,
            allowedViewer: () => allowedViewer,
            refreshCredentials: async () => {
              const r = await pollPhone(bearer, {
                run,
                channelStatus: 'close',
                camera: selectPhoneCamera(api.getState()).camera,
                freshCredentials: true,
              });
              return isValidChannel(r.signalingChannel) ? kvsChannelOf(r.signalingChannel) : null;
            },
            callbacks: {
              onStatus: () => api.dispatch(phoneConnectionChanged(connection())),
              onViewers: () => api.dispatch(phoneConnectionChanged(connection())),
              onLost: () => {
                // Signaling could not be reopened (the server away, a network cut). The master is kept, peers and
                // all: media flows without signaling, and only it can close the peer of a checker the matching no
                // longer names. The next poll with a channel reopens it (with fresh credentials).
                api.dispatch(phoneConnectionChanged({ connection: 'reconnecting', watched: false }));
              },
            },
          });
          if (selectPhoneCamera(api.getState()).step !== 'running') {
            await handle.stop(0);
            return;
          }
          master = handle;
          api.dispatch(phoneConnectionChanged(connection()));
        } catch (e) {
          fresh = true;
          logger.error('phone', `publishing could not start: ${String(e)}`);
        } finally {
          starting = false;
        }
      };

      const apply = async (r: PhonePoll): Promise<boolean> => {
        api.dispatch(phonePollIntervalChanged(r.matchingTimeout));
        if (r.sitting === 'ended') {
          api.dispatch(phoneEnded('sittingEnded'));
          return false;
        }
        allowedViewer = r.viewerClientId;
        master?.matchedViewerChanged();
        const stream = getStream(PHONE_STREAM_ID);
        if (r.recording && stream) void rec.start(stream, r.recording);
        const channel = r.signalingChannel;
        if (isValidChannel(channel)) {
          if (master && master.channelName !== channel.channelName) await stopMaster();
          if (master && master.stats().status === 'lost') void master.reconnect();
          else if (!master && !starting) void start(channel);
        } else if (master) {
          await stopMaster();
        }
        api.dispatch(phoneConnectionChanged(connection()));
        return true;
      };

      const pollOnce = async (): Promise<boolean> => {
        const stats = master?.stats();
        try {
          const r = await pollPhone(bearer, {
            run,
            channelStatus: master && stats?.status === 'live' ? 'open' : 'close',
            camera: selectPhoneCamera(api.getState()).camera,
            ...(fresh ? { freshCredentials: true } : {}),
            stats: { master: stats?.status ?? 'idle', viewers: stats?.viewers ?? 0 },
          });
          fresh = false;
          return await apply(r);
        } catch (e) {
          if (isApiError(e) && e.status === 401) {
            if (e.code === 'phone_replaced') api.dispatch(phoneReplaced());
            else api.dispatch(phoneEnded('sessionEnded'));
            return false;
          }
          // Network gone or a server error: keep publishing what can be, and ask again next interval.
          api.dispatch(phoneConnectionChanged({ connection: 'reconnecting' }));
          return true;
        }
      };

      // A page that goes away (closed, reloaded, the browser killed) says so: the checker sees the phone lost
      // at once instead of after its silence.
      const onPageHide = (e: PageTransitionEvent) => {
        if (!e.persisted) leavePhoneOnUnload(bearer, run);
      };
      window.addEventListener('pagehide', onPageHide);

      const loop = api.fork(async (task) => {
        for (;;) {
          if (!(await task.pause(pollOnce()))) return;
          await task.delay(intervalMs());
        }
      });

      const end = await api.take(
        (a) => phoneStopRequested.match(a) || phoneEnded.match(a) || phoneReplaced.match(a),
      );
      window.removeEventListener('pagehide', onPageHide);
      loop.cancel();
      await stopMaster();
      const [ended] = end;
      recording = null;
      // The sitting ended or the examinee stopped: the rest of the recording is sent and completed (before the
      // camera is released). A replaced phone's session no longer works: what it holds is completed by the
      // server when the sitting ends.
      if (phoneReplaced.match(ended)) await rec.dispose();
      else await rec.finish();
      releaseStream(PHONE_STREAM_ID);
      releaseWakeLock();
      if (phoneStopRequested.match(ended)) {
        await leavePhone(bearer, run).catch(() => undefined);
        api.dispatch(phoneEnded('stopped'));
      }
      // The page is done with this sitting: a reload must not pick the session up again (a new code will).
      forgetPhone();
      token = null;
    },
  });
}
