/**
 * The exam page's own effects (spec §4): the recording-time limit, the exam window watcher, the exam held
 * while the shared screen is missing, the desktop application told when the exam starts, and the 401 that
 * ends monitoring. Registered with /examining (tester-feature.ts `examFeature`): the exam runs only there, so
 * the pages before it do not carry this code, nor the recording and wider-view state it reads.
 */
import type { AppStartListening } from '../../app/listener';
import { getTesterDetail } from '../../api/tester';
import { loggedOut } from '../session/session-slice';
import { showAlert } from '../layout/layout-thunks';
import { recordingStarted } from '../recording/recording-slice';
import { screenShareEnded, selectExamBlocker, selectWiderView } from '../wider-view/wider-view-slice';
import {
  authErrorOccurred,
  examPhaseChanged,
  messagePollStopped,
  recordingDeadlineKnown,
  testerExited,
  selectTester,
} from './tester-slice';
import { closeExamWindow, examWindowClosed, stopUnloadWarning } from './exam-window';
import { notifyDesktopApp } from './desktop-app-bridge';
import { examInterrupted, recordingDeadlineFrom, stopWakeLock } from './tester-thunks';
import { recordingTimeExceeded } from './exam-thunks';

/** Reasons a 401 gives for the session's end (app-listeners.ts) that end monitoring on the exam page. */
const SESSION_LOSS_REASONS = new Set([
  'errors:sessionExpired',
  'errors:sessionSuperseded',
  'errors:sessionEnded',
]);

/** How often the exam window is checked for being closed. */
export const EXAM_WINDOW_CHECK_MS = 1000;

export function addExamListeners(startListening: AppStartListening): void {
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
