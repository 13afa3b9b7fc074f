/**
 * The recorded streams of one store's page (README "The wider view"): the page (recording-page.ts) and a
 * runtime per stream (recording-runtime.ts), the examinee's camera and microphone (the exam's recording), the
 * shared screen and the room scans. Loaded with the first recording, or ahead when the examinee agrees to the
 * exam notes (recording-listeners.ts), so the pages before the exam and the exam page's first render do not
 * carry it.
 */
import { LOCAL_STREAM_ID, SCREEN_STREAM_ID } from '../../media/stream-registry';
import { RecordingPage } from './recording-page';
import { RecordingRuntime } from './recording-runtime';

export function createRecordingMachinery() {
  const page = new RecordingPage();
  return {
    page,
    camera: new RecordingRuntime(page, { streamId: LOCAL_STREAM_ID }),
    screen: new RecordingRuntime(page, { streamId: SCREEN_STREAM_ID, stream: 'screen' }),
    roomScan: new RecordingRuntime(page, { streamId: LOCAL_STREAM_ID, stream: 'room_scan' }),
  };
}

export type RecordingMachinery = ReturnType<typeof createRecordingMachinery>;
