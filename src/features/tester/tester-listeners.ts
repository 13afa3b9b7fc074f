import { TaskAbortError } from '@reduxjs/toolkit';
import type { AppStartListening } from '../../app/listener';
import { MESSAGE_COMMANDS, parseCommand } from '../../../contract/messages';
import { isApiError, NETWORK_ERROR_STATUS } from '../../api/api-error';
import { getMessages } from '../../api/messages';
import { loggedOut } from '../session/session-slice';
import { alertModal } from './tester-modals';
import { networkErrorOccurred } from '../live/live-slice';
import {
  authErrorOccurred,
  chatReceived,
  commandReceived,
  examPhaseChanged,
  messagePollStarted,
  messagePollStopped,
  messagesSeen,
  testerExitRequested,
  testerExited,
  testerPageEntered,
} from './tester-slice';
import { closeExamWindow, examWindowClosed, stopUnloadWarning } from './exam-window';
import {
  ensureLive,
  examInterrupted,
  exitRequested,
  kickedOut,
  recordingTimeExceeded,
  stopWakeLock,
} from './tester-thunks';

/** How often the chat and the signalling markers are fetched. */
export const MESSAGE_POLL_MS = 2000;
/** How often the exam window is checked for being closed. */
export const EXAM_WINDOW_CHECK_MS = 1000;

/**
 * Tester-page effects: the webrtc_message poll (chat newest first, markers as commandReceived), KICK_OUT
 * and MARKING_ALERT, the exam-window watcher, the recording-time limit and the 401 "monitoring ends" alert.
 */
export function addTesterListeners(startListening: AppStartListening): void {
  startListening({
    actionCreator: messagePollStarted,
    effect: async (_action, api) => {
      api.cancelActiveListeners();
      let initial = api.getState().tester.lastMessageId === 0;
      const loop = api.fork(async (task) => {
        for (;;) {
          const { testerId, lastMessageId } = api.getState().tester;
          if (testerId !== null) {
            try {
              const msgs = await task.pause(getMessages(testerId, lastMessageId));
              const ordered = [...msgs].sort((a, b) => a.id - b.id);
              const chat = ordered.filter((m) => m.kind !== 'command');
              if (chat.length > 0)
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
              for (const m of ordered.filter((x) => x.kind === 'command')) {
                const { command, payload } = parseCommand(m.message);
                api.dispatch(commandReceived({ command, payload, id: m.id, initial }));
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

  startListening({
    actionCreator: testerExitRequested,
    effect: async (a, api) => {
      await api.dispatch(exitRequested(a.payload.mode, a.payload.after));
    },
  });

  startListening({
    actionCreator: commandReceived,
    effect: async (action, api) => {
      const { command, payload, initial } = action.payload;
      if (command === MESSAGE_COMMANDS.kickOut) {
        await api.dispatch(kickedOut());
      } else if (command === MESSAGE_COMMANDS.markingAlert && !initial) {
        await alertModal(api.dispatch, {
          type: 'caution',
          messageKey: 'examining:markingAlert',
          messageValues: { text: payload ?? '' },
        });
      }
    },
  });

  // While examining: a closed exam window is an interruption; maxRectime ends the sitting (spec §4).
  startListening({
    predicate: (action, state, prev) =>
      examPhaseChanged.match(action) &&
      state.tester.examPhase === 'examing' &&
      prev.tester.examPhase !== 'examing',
    effect: async (_action, api) => {
      api.cancelActiveListeners();
      const watcher = api.fork(async (task) => {
        for (;;) {
          await task.delay(EXAM_WINDOW_CHECK_MS);
          if (examWindowClosed()) await api.dispatch(examInterrupted());
        }
      });
      await api.condition((_a, s) => s.tester.examPhase !== 'examing');
      watcher.cancel();
    },
  });

  startListening({
    predicate: (action, state, prev) =>
      examPhaseChanged.match(action) &&
      state.tester.examPhase === 'examing' &&
      prev.tester.examPhase !== 'examing' &&
      prev.tester.examPhase !== 'interrupted',
    effect: async (_action, api) => {
      const max = api.getState().startup.params.maxRectime;
      if (!max || max <= 0) return;
      const ended = await api.condition(
        (a, s) => loggedOut.match(a) || s.tester.examPhase === 'finished' || s.tester.exit !== 'none',
        max * 1000,
      );
      if (!ended) await api.dispatch(recordingTimeExceeded());
    },
  });

  // spec §8: on the exam page a 401 ends monitoring (the app's 401 rule logs out and goes to login).
  startListening({
    actionCreator: loggedOut,
    effect: async (action, api) => {
      const before = api.getOriginalState().tester;
      const monitoring = ['opening', 'examing', 'interrupted'].includes(before.examPhase);
      if (action.payload?.reasonKey === 'errors:sessionExpired' && monitoring) {
        api.dispatch(authErrorOccurred());
        api.dispatch(testerExited({ exit: 'monitoringEnded', messageKey: 'examining:errors.authError' }));
        api.dispatch(messagePollStopped());
        stopUnloadWarning();
        closeExamWindow();
        stopWakeLock();
        await alertModal(api.dispatch, { type: 'error', messageKey: 'examining:errors.authError' });
      }
    },
  });
}
