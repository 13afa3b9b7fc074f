import { TaskAbortError } from '@reduxjs/toolkit';
import type { AppStartListening } from '../../app/listener';
import { MESSAGE_COMMANDS, parseCommand } from '@contract/constants/messages';
import { isApiError, NETWORK_ERROR_STATUS } from '../../api/api-error';
import { getMessages } from '../../api/messages';
import { loggedOut, testerLogoutRequested } from '../session/session-slice';
import { playCue, windowHasAttention } from '../../platform/attention';
import { showAlert } from '../layout/layout-thunks';
import { networkErrorOccurred } from '../live/live-slice';
import {
  chatReceived,
  chatRead,
  commandReceived,
  messagePollStarted,
  messagePollStopped,
  messagesSeen,
  testerExitRequested,
  testerPageEntered,
  selectTester,
} from './tester-slice';
import { listenToDesktopApp, stopListeningToDesktopApp } from './desktop-app-bridge';
import { desktopAppClosing, ensureLive, exitRequested, kickedOut } from './tester-thunks';

/** How often the chat and the signalling markers are fetched. */
export const MESSAGE_POLL_MS = 2000;

/**
 * Every tester page's effects: the webrtc_message poll (chat newest first, markers as commandReceived), the
 * live channel on entering a page, the desktop application, the exits, KICK_OUT and MARKING_ALERT. What only
 * the exam page does is exam-listeners.ts (registered with /examining).
 */
export function addTesterListeners(startListening: AppStartListening): void {
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

  // The desktop proctoring application (spec §1): listened to while the sitting's pages run (the exam page
  // tells it when the exam starts in this window: exam-listeners.ts).
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
}
