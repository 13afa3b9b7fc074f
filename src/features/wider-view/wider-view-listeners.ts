/**
 * When the wider view acts on its own (README "The wider view"): the exam page asks where the sitting stands, a
 * checker's ROOM_SCAN_REQUESTED opens the scan's instructions at once, and the end of the exam (or the session)
 * lets the screen go.
 */
import type { AppStartListening } from '../../app/listener';
import { WIDER_VIEW_COMMANDS } from '@contract/constants/wider-view';
import { loggedOut } from '../session/session-slice';
import {
  commandReceived,
  examPhaseChanged,
  selectTester,
  sittingClosing,
  stepReached,
} from '../tester/tester-slice';
import { ROOM_SCAN_SECONDS } from './room-scan-steps';
import { roomScanStarted, selectWiderView } from './wider-view-slice';
import { releaseScreenShare, roomScanStopRequested, widerViewRequested } from './wider-view-thunks';

export function addWiderViewListeners(startListening: AppStartListening): void {
  // The exam page (step 4) opened: what the sitting needs before its exam, and a scan asked for meanwhile.
  startListening({
    predicate: (action) => stepReached.match(action) && action.payload === 4,
    effect: async (_action, api) => {
      await api.dispatch(widerViewRequested());
    },
  });

  // The checker asked for a room scan: the instructions show now (the server's answer names the scan).
  startListening({
    predicate: (action) =>
      commandReceived.match(action) &&
      !action.payload.initial &&
      action.payload.command === WIDER_VIEW_COMMANDS.roomScanRequested,
    effect: async (_action, api) => {
      await api.dispatch(widerViewRequested());
    },
  });

  // The countdown: when its time is up the scan ends by itself (the examinee may end it earlier).
  startListening({
    actionCreator: roomScanStarted,
    effect: async (action, api) => {
      api.cancelActiveListeners();
      await api.delay(ROOM_SCAN_SECONDS * 1000);
      const scan = selectWiderView(api.getState()).roomScan;
      if (scan?.phase === 'scanning' && scan.scanId === action.payload.scanId)
        await api.dispatch(roomScanStopRequested());
    },
  });

  // The exam is over, or this page's session: the screen is not needed any more (nothing to report).
  startListening({
    predicate: (action, state) =>
      loggedOut.match(action) ||
      sittingClosing.match(action) ||
      (examPhaseChanged.match(action) &&
        (selectTester(state).examPhase === 'finished' || selectTester(state).examPhase === 'ended')),
    effect: () => {
      releaseScreenShare();
    },
  });
}
