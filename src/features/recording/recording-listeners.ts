/**
 * When the exam's recording starts and ends (spec §4 "Recording"): start the recorder when the exam starts
 * (tester phase `examing`, or `examRecordingRequested`), stop, send the rest and complete it when it ends,
 * dispose on logout, drive the layout's upload counter. What each step does is the runtime's
 * (recording-runtime.ts, recording-page.ts); these listeners only map store events to its calls.
 */
import type { AppStartListening } from '../../app/listener';
import { LOCAL_STREAM_ID, SCREEN_STREAM_ID } from '../../media/stream-registry';
import { loggedOut } from '../session/session-slice';
import {
  examPhaseChanged,
  examTermAgreementChanged,
  sittingClosing,
  testerStateChanged,
  selectTester,
} from '../tester/tester-slice';
import { TESTER_STATUS } from '@contract/constants/tester';
import {
  roomScanStarted,
  roomScanStopped,
  screenShareEnded,
  screenShared,
} from '../wider-view/wider-view-slice';
import { RecordingPage } from './recording-page';
import { RecordingRuntime } from './recording-runtime';
import {
  backlogChanged,
  examRecordingRequested,
  examRecordingStopRequested,
  recordingCompleted,
  recordingDisposed,
  recordingFailed,
  recordingStatusChanged,
  uploadRetryRequested,
} from './recording-slice';

const EXAM_PHASES = ['examing', 'interrupted'];

/**
 * Registers the recording listeners of one store (the recording feature registers them with its routes): the
 * store gets its own page with its recorded streams, each a runtime: the examinee's camera and microphone
 * (the exam's recording), and the wider view's shared screen (one recording per share) and room scans (one
 * recording per scan, of the camera).
 */
export function addRecordingListeners(startListening: AppStartListening): void {
  const page = new RecordingPage();
  const camera = new RecordingRuntime(page, { streamId: LOCAL_STREAM_ID });
  const screen = new RecordingRuntime(page, { streamId: SCREEN_STREAM_ID, stream: 'screen' });
  const roomScan = new RecordingRuntime(page, { streamId: LOCAL_STREAM_ID, stream: 'room_scan' });

  // The screen is recorded while it is shared: each share its own recording, completed when the share ends
  // or the exam does.
  startListening({
    actionCreator: screenShared,
    effect: async (_action, api) => {
      await screen.start(api);
    },
  });
  startListening({
    predicate: (action, state) =>
      screenShareEnded.match(action) ||
      sittingClosing.match(action) ||
      (examPhaseChanged.match(action) && selectTester(state).examPhase === 'finished'),
    effect: async (_action, api) => {
      await screen.finish(api);
    },
  });
  // A room scan records the camera from its start to its end.
  startListening({
    actionCreator: roomScanStarted,
    effect: async (_action, api) => {
      await roomScan.start(api);
    },
  });
  startListening({
    predicate: (action) => roomScanStopped.match(action) || sittingClosing.match(action),
    effect: async (_action, api) => {
      await roomScan.finish(api);
    },
  });

  // The examinee agreed to the exam notes: the recording's media code loads while the exam system opens, so
  // the start does not wait for it (and the pages before /examining never load it).
  startListening({
    predicate: (action) => examTermAgreementChanged.match(action) && action.payload,
    effect: () => {
      page.media().catch(() => undefined);
    },
  });

  // Start: the exam began (or the page came back to a running exam), or the page asked explicitly.
  startListening({
    predicate: (action, state, prev) =>
      examRecordingRequested.match(action) ||
      (examPhaseChanged.match(action) &&
        EXAM_PHASES.includes(selectTester(state).examPhase) &&
        !EXAM_PHASES.includes(selectTester(prev).examPhase)),
    effect: async (_action, api) => {
      await camera.start(api);
    },
  });

  // End: finishing the exam (before the live channel releases the camera), tester state 7, a planned exit or a
  // kick-out (the page sends what it holds while its session lasts), or explicit.
  startListening({
    predicate: (action, state) =>
      examRecordingStopRequested.match(action) ||
      sittingClosing.match(action) ||
      (examPhaseChanged.match(action) &&
        (selectTester(state).examPhase === 'finishing' || selectTester(state).examPhase === 'finished')) ||
      (testerStateChanged.match(action) && action.payload === TESTER_STATUS.finishExam),
    effect: async (_action, api) => {
      await camera.finish(api);
    },
  });

  // The session ended without a planned exit (another window's login, an expired session): dispose, the data
  // stays on the device for the page that continues the sitting.
  startListening({
    actionCreator: loggedOut,
    effect: async (_action, api) => {
      await page.dispose();
      api.dispatch(recordingDisposed());
    },
  });

  // The layout's upload alert counter follows the recording's uploads.
  startListening({
    predicate: (action) =>
      recordingStatusChanged.match(action) ||
      backlogChanged.match(action) ||
      recordingCompleted.match(action) ||
      recordingFailed.match(action) ||
      recordingDisposed.match(action) ||
      loggedOut.match(action),
    effect: (_action, api) => {
      page.syncUploadCounter(api.dispatch, api.getState());
    },
  });

  // A retry after an upload give-up during the exam (the finishing flow waits for its own retry).
  startListening({
    actionCreator: uploadRetryRequested,
    effect: () => {
      camera.retryUpload();
    },
  });
}
