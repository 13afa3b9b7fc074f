import { TaskAbortError } from '@reduxjs/toolkit';
import type { AppStartListening } from '../../app/listener';
import { MESSAGE_COMMANDS, parseCommand } from '@contract/constants/messages';
import { isApiError, NETWORK_ERROR_STATUS } from '../../api/api-error';
import { getMessages } from '../../api/messages';
import { getTesterDetail } from '../../api/tester';
import { loggedOut, testerLogoutRequested } from '../session/session-slice';
import { playCue, windowHasAttention } from '../../platform/attention';
import { showAlert } from '../layout/layout-thunks';
import { networkErrorOccurred } from '../live/live-slice';
import { recordingStarted } from '../recording/recording-slice';
import {
  authErrorOccurred,
  chatReceived,
  chatRead,
  commandReceived,
  examPhaseChanged,
  messagePollStarted,
  messagePollStopped,
  messagesSeen,
  recordingDeadlineKnown,
  testerExitRequested,
  testerExited,
  testerPageEntered,
  selectTester,
} from './tester-slice';
import { closeExamWindow, examWindowClosed, stopUnloadWarning } from './exam-window';
import { screenShareEnded, selectExamBlocker, selectWiderView } from '../wider-view/wider-view-slice';
import { listenToDesktopApp, notifyDesktopApp, stopListeningToDesktopApp } from './desktop-app-bridge';
import {
  desktopAppClosing,
  ensureLive,
  examInterrupted,
  exitRequested,
  kickedOut,
  recordingDeadlineFrom,
  recordingTimeExceeded,
  stopWakeLock,
} from './tester-thunks';

/** How often the chat and the signalling markers are fetched. */
export const MESSAGE_POLL_MS = 2000;
/** Reasons a 401 gives for the session's end (app-listeners.ts) that end monitoring on the exam page. */
const SESSION_LOSS_REASONS = new Set([
  'errors:sessionExpired',
  'errors:sessionSuperseded',
  'errors:sessionEnded',
]);

/** How often the exam window is checked for being closed. */
export const EXAM_WINDOW_CHECK_MS = 1000;

/**
 * Tester-page effects: the webrtc_message poll (chat newest first, markers as commandReceived), KICK_OUT
 * and MARKING_ALERT, the exam-window watcher, the recording-time limit and the 401 "monitoring ends" alert.
 */
export function addTesterListeners(startListening: AppStartListening): void {
  // The recording-time limit counts from the sitting's first recording start on the server: once a recording
  // has started, the server says when that was.
  startListening({
    actionCreator: recordingStarted,
    effect: async (_action, api) => {
      const detail = await getTesterDetail().catch(() => null);
      if (detail) api.dispatch(recordingDeadlineFrom(detail));
    },
  });

  startListening({
    actionCreator: messagePollStarted,
    effect: async (_action, api) => {
      api.cancelActiveListeners();
      let initial = selectTester(api.getState()).lastMessageId === 0;
      const loop = api.fork(async (task) => {
        for (;;) {
          const { testerId, lastMessageId } = selectTester(api.getState());
          if (testerId !== null) {
            try {
              const msgs = await task.pause(getMessages(testerId, lastMessageId));
              const ordered = [...msgs].sort((a, b) => a.id - b.id);
              const chat = ordered.filter((m) => m.kind !== 'command');
              if (chat.length > 0) {
                api.dispatch(
                  chatReceived(
                    chat.map((m) => ({
                      id: m.id,
                      sendType: m.sendType,
                      message: m.message,
                      createdAt: m.createdAt,
                    })),
                  ),
                );
                // What was there before this page (a reload, a new login) was seen already.
                if (initial) api.dispatch(chatRead(chat[chat.length - 1]!.id));
                // A new message from the monitor while the exam window covers this one: a sound, so it is
                // not missed (the window title shows the unread count).
                else if (chat.some((m) => m.sendType === 0) && !windowHasAttention()) playCue();
              }
              for (const m of ordered.filter((x) => x.kind === 'command')) {
                const { command, payload } = parseCommand(m.message);
                api.dispatch(commandReceived({ command, payload, id: m.id, initial, sendType: m.sendType }));
              }
              const maxId = ordered.reduce((mx, m) => Math.max(mx, m.id), 0);
              if (maxId > 0) api.dispatch(messagesSeen(maxId));
              initial = false;
            } catch (e) {
              if (e instanceof TaskAbortError) throw e;
              if (isApiError(e) && e.status === NETWORK_ERROR_STATUS) api.dispatch(networkErrorOccurred());
            }
          }
          await task.delay(MESSAGE_POLL_MS);
        }
      });
      await api.condition((a) => messagePollStopped.match(a) || loggedOut.match(a));
      loop.cancel();
    },
  });

  startListening({
    actionCreator: testerPageEntered,
    effect: async (_a, api) => {
      await api.dispatch(ensureLive());
    },
  });

  // The desktop proctoring application (spec §1): listened to while the sitting's pages run; told when the
  // exam starts in this window.
  startListening({
    actionCreator: messagePollStarted,
    effect: (_a, api) => {
      listenToDesktopApp(() => void api.dispatch(desktopAppClosing()));
    },
  });
  startListening({
    actionCreator: loggedOut,
    effect: () => stopListeningToDesktopApp(),
  });
  startListening({
    predicate: (action, state, prev) =>
      examPhaseChanged.match(action) &&
      selectTester(state).examPhase === 'examing' &&
      selectTester(prev).examPhase !== 'examing' &&
      selectTester(prev).examPhase !== 'interrupted',
    effect: (_a, api) => {
      const s = api.getState();
      notifyDesktopApp({
        type: 'sittingStarted',
        loginId: s.session.login?.loginId ?? s.startup.params.loginId,
        examName: s.startup.params.examName || undefined,
      });
    },
  });

  startListening({
    actionCreator: testerExitRequested,
    effect: async (a, api) => {
      await api.dispatch(exitRequested(a.payload.mode, a.payload.after));
    },
  });

  // The header's logout on a tester page (spec §4: exit mode logout, in order).
  startListening({
    actionCreator: testerLogoutRequested,
    effect: async (_a, api) => {
      await api.dispatch(exitRequested('logout'));
    },
  });

  startListening({
    actionCreator: commandReceived,
    effect: async (action, api) => {
      const { command, payload, initial } = action.payload;
      if (command === MESSAGE_COMMANDS.kickOut) {
        await api.dispatch(kickedOut());
      } else if (command === MESSAGE_COMMANDS.markingAlert && !initial) {
        await api.dispatch(
          showAlert({
            type: 'caution',
            messageKey: 'tester:markingAlert',
            messageValues: { text: payload ?? '' },
          }),
        );
      }
    },
  });

  // While examining: a closed exam window is an interruption; maxRectime ends the sitting (spec §4).
  startListening({
    predicate: (action, state, prev) =>
      examPhaseChanged.match(action) &&
      selectTester(state).examPhase === 'examing' &&
      selectTester(prev).examPhase !== 'examing',
    effect: async (_action, api) => {
      api.cancelActiveListeners();
      const watcher = api.fork(async (task) => {
        for (;;) {
          await task.delay(EXAM_WINDOW_CHECK_MS);
          if (examWindowClosed()) await api.dispatch(examInterrupted());
        }
      });
      await api.condition((_a, s) => selectTester(s).examPhase !== 'examing');
      watcher.cancel();
    },
  });

  // The screen share ended during the exam (README "The wider view"): the exam is held until the entire screen
  // is shared again. The exam window closes and the exam is interrupted (state 6, process suspend); resuming it
  // waits for the share.
  // A page that comes back to a running exam without the share (a reload) is held the same way.
  startListening({
    predicate: (action, state) =>
      (screenShareEnded.match(action) || examPhaseChanged.match(action)) &&
      selectTester(state).examPhase === 'examing' &&
      selectExamBlocker(state) === 'screen' &&
      selectWiderView(state).screen.status === 'ended',
    effect: async (_action, api) => {
      closeExamWindow();
      await api.dispatch(examInterrupted());
    },
  });

  // spec §4 recording time exceeded: counted from the sitting's first recording start on the server, so neither
  // a reload nor a new login resets it (recordingDeadline, set from tester/detail).
  startListening({
    actionCreator: recordingDeadlineKnown,
    effect: async (action, api) => {
      api.cancelActiveListeners();
      const deadline = action.payload;
      if (deadline === null) return;
      const ended = await api.condition(
        (a, s) =>
          loggedOut.match(a) ||
          selectTester(s).examPhase === 'finished' ||
          selectTester(s).exit !== 'none' ||
          selectTester(s).recordingDeadline !== deadline,
        Math.max(0, deadline - Date.now()),
      );
      if (!ended) await api.dispatch(recordingTimeExceeded());
    },
  });

  // spec §8: on the exam page a 401 ends monitoring (the app's 401 rule logs out and goes to login).
  startListening({
    actionCreator: loggedOut,
    effect: async (action, api) => {
      const before = selectTester(api.getOriginalState());
      const monitoring = ['opening', 'examing', 'interrupted'].includes(before.examPhase);
      const reason = action.payload?.reasonKey;
      if (reason && SESSION_LOSS_REASONS.has(reason) && monitoring) {
        // Expired: spec §8 "authentication error, monitoring ends". Ended on purpose (another window's login,
        // the recording-time limit): the reason itself.
        const messageKey = reason === 'errors:sessionExpired' ? 'tester:errors.authError' : reason;
        notifyDesktopApp({
          type: 'sittingEnded',
          loginId: api.getOriginalState().session.login?.loginId ?? '',
          reason: 'sessionEnded',
        });
        api.dispatch(authErrorOccurred());
        api.dispatch(testerExited({ exit: 'monitoringEnded', messageKey }));
        api.dispatch(messagePollStopped());
        stopUnloadWarning();
        closeExamWindow();
        stopWakeLock();
        await api.dispatch(showAlert({ type: 'error', messageKey }));
      }
    },
  });
}
