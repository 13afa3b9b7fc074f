/**
 * When the exam's recording starts and ends (spec §4 "Recording"): start the recorder when the exam starts
 * (tester phase `examing`, or `examRecordingRequested`), stop, send the rest and complete it when it ends,
 * dispose on logout, drive the layout's upload counter. What each step does is the runtime's
 * (recording-runtime.ts, recording-page.ts, loaded with the first recording: recording-machinery.ts); these
 * listeners only map store events to its calls.
 */
import type { AppStartListening } from '../../app/listener';
import { loggedOut } from '../session/session-slice';
import {
  examPhaseChanged,
  examTermAgreementChanged,
  sittingClosing,
  testerStateChanged,
  selectTester,
} from '../tester/tester-slice';
import { TESTER_STATUS } from '@contract/constants/tester';
import type { StreamKind } from '@contract/constants/wider-view';
import {
  roomScanStarted,
  roomScanStopped,
  screenShareEnded,
  screenShared,
} from '../wider-view/wider-view-slice';
import type { RecordingMachinery } from './recording-machinery';
import type { RecordingRuntime } from './recording-runtime';
import { reportStartFailure, type RecordingEffects } from './recording-report';
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
 * recording per scan, of the camera). They load with the first recording (or ahead, when the examinee agrees
 * to the exam notes); before that there is nothing to finish, dispose or count.
 */
export function addRecordingListeners(startListening: AppStartListening): void {
  let loading: Promise<RecordingMachinery> | null = null;
  let current: RecordingMachinery | null = null;
  // The page, its runtimes and the media code they record with, together; a load that failed is tried again
  // by the next recording.
  const machinery = (): Promise<RecordingMachinery> =>
    (loading ??= Promise.all([import('./recording-machinery'), import('./recording-media')]).then(
      ([m]) => (current = m.createRecordingMachinery()),
      (e: unknown) => {
        loading = null;
        throw e;
      },
    ));
  /** The machinery once a recording asked for it (waiting for it while it loads), else null. */
  const loaded = (): Promise<RecordingMachinery | null> =>
    loading ? loading.catch(() => null) : Promise.resolve(null);
  /** Starts a stream's recording; its code not loading is a recording that did not start. */
  const start = async (
    api: RecordingEffects,
    kind: StreamKind,
    runtime: (m: RecordingMachinery) => RecordingRuntime,
  ) => {
    let m: RecordingMachinery;
    try {
      m = await machinery();
    } catch {
      await reportStartFailure(api, kind);
      return;
    }
    await runtime(m).start(api);
  };
  const finish = async (api: RecordingEffects, runtime: (m: RecordingMachinery) => RecordingRuntime) => {
    const m = await loaded();
    if (m) await runtime(m).finish(api);
  };

  // The screen is recorded while it is shared: each share its own recording, completed when the share ends
  // or the exam does.
  startListening({
    actionCreator: screenShared,
    effect: async (_action, api) => {
      await start(api, 'screen', (m) => m.screen);
    },
  });
  startListening({
    predicate: (action, state) =>
      screenShareEnded.match(action) ||
      sittingClosing.match(action) ||
      (examPhaseChanged.match(action) && selectTester(state).examPhase === 'finished'),
    effect: async (_action, api) => {
      await finish(api, (m) => m.screen);
    },
  });
  // A room scan records the camera from its start to its end.
  startListening({
    actionCreator: roomScanStarted,
    effect: async (_action, api) => {
      await start(api, 'room_scan', (m) => m.roomScan);
    },
  });
  startListening({
    predicate: (action) => roomScanStopped.match(action) || sittingClosing.match(action),
    effect: async (_action, api) => {
      await finish(api, (m) => m.roomScan);
    },
  });

  // The examinee agreed to the exam notes: the recording's code loads while the exam system opens, so the start
  // does not wait for it (and the pages before /examining never load it).
  startListening({
    predicate: (action) => examTermAgreementChanged.match(action) && action.payload,
    effect: () => {
      machinery()
        .then((m) => m.page.media())
        .catch(() => undefined);
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
      await start(api, 'camera', (m) => m.camera);
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
      await finish(api, (m) => m.camera);
    },
  });

  // The session ended without a planned exit (another window's login, an expired session): dispose, the data
  // stays on the device for the page that continues the sitting.
  startListening({
    actionCreator: loggedOut,
    effect: async (_action, api) => {
      await (await loaded())?.page.dispose();
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
      current?.page.syncUploadCounter(api.dispatch, api.getState());
    },
  });

  // A retry after an upload give-up during the exam (the finishing flow waits for its own retry).
  startListening({
    actionCreator: uploadRetryRequested,
    effect: () => {
      current?.camera.retryUpload();
    },
  });
}
