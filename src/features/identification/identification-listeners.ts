import { TaskAbortError } from '@reduxjs/toolkit';
import type { AppStartListening } from '../../app/listener';
import { navigateTo } from '../../app/navigation';
import { MESSAGE_COMMANDS } from '@contract/constants/messages';
import { getTesterDetail } from '../../api/tester';
import { loggedOut } from '../session/session-slice';
import {
  commandReceived,
  identityAccepted,
  identityCheckRequested,
  identityRejected,
  testerStateChanged,
  selectTester,
} from '../tester/tester-slice';
import {
  monitorAcceptedReceived,
  monitorCheckAccepted,
  monitorCheckRejected,
  monitorCheckSent,
  selectIdentification,
} from './identification-slice';
import { TESTER_STATUS } from '@contract/constants/tester';
import { href } from '@/config/paths';

/** Spec §9: identification wait poll 1 s. */
export const IDENTIFICATION_POLL_MS = 1000;

/**
 * The monitor's verdict: REJECTED → rejected; ACCEPTED → wait (polling tester/detail every 1 s) until the
 * tester status is IDENTIFICATED, then apply it and go on to /examining (spec §4).
 */
export function addIdentificationListeners(startListening: AppStartListening): void {
  // After a reload or a new login: a check the examinee asked for before (AUTHENTICATING in the history, no
  // answer yet) is still pending, as the checker's console shows it.
  startListening({
    predicate: (a) =>
      commandReceived.match(a) &&
      a.payload.initial &&
      a.payload.sendType === 1 &&
      a.payload.command === MESSAGE_COMMANDS.authenticating,
    effect: (_a, api) => {
      const s = api.getState();
      if (selectIdentification(s).monitor.status !== 'preparing' || selectTester(s).identity.finished) return;
      api.dispatch(identityCheckRequested());
      api.dispatch(monitorCheckSent());
    },
  });

  startListening({
    predicate: (a) => commandReceived.match(a) && a.payload.command === MESSAGE_COMMANDS.rejected,
    effect: (_a, api) => {
      api.dispatch(identityRejected());
      api.dispatch(monitorCheckRejected());
    },
  });

  startListening({
    predicate: (a) => commandReceived.match(a) && a.payload.command === MESSAGE_COMMANDS.accepted,
    effect: async (_a, api) => {
      api.cancelActiveListeners();
      if (selectIdentification(api.getState()).monitor.status === 'accepted') return;
      api.dispatch(monitorAcceptedReceived());
      const wait = api.fork(async (task) => {
        for (;;) {
          try {
            const d = await task.pause(getTesterDetail());
            if (d.rejected === 1) {
              api.dispatch(identityRejected());
              api.dispatch(monitorCheckRejected());
              return;
            }
            if (d.status >= TESTER_STATUS.identificated) {
              api.dispatch(testerStateChanged(d.status));
              api.dispatch(identityAccepted());
              api.dispatch(monitorCheckAccepted());
              navigateTo(href('examining'));
              return;
            }
          } catch (e) {
            if (e instanceof TaskAbortError) throw e;
          }
          await task.delay(IDENTIFICATION_POLL_MS);
        }
      });
      const r = await Promise.race([wait.result, api.condition((a) => loggedOut.match(a)).then(() => null)]);
      if (r === null) wait.cancel();
    },
  });
}
