import { describe, expect, it } from 'vitest';
import reducer, {
  initialRecordingState,
  recordingCompleted,
  recordingFailed,
  recordingStarted,
  recordingStarting,
  recordingStatusChanged,
  selectHasUnsent,
  selectUploadCounts,
} from './recording-slice';
import { loggedOut } from '../session/session-slice';

describe('recording slice', () => {
  it('starting → recording → uploading → done', () => {
    let s = reducer(initialRecordingState, recordingStarting());
    expect(s.phase).toBe('starting');
    s = reducer(s, recordingStarted({ recordId: 4, segment: 1, mimeType: 'video/webm', durable: true }));
    expect(s).toMatchObject({ phase: 'recording', recordId: 4, recorderRunning: true });
    s = reducer(
      s,
      recordingStatusChanged({
        state: 'uploading',
        recording: false,
        partsDone: 1,
        partsTotal: 2,
        bytesPending: 5,
        mimeType: null,
      }),
    );
    expect(s.phase).toBe('uploading');
    expect(selectUploadCounts({ recording: s })).toEqual({ done: 1, total: 2 });
    expect(selectHasUnsent({ recording: s })).toBe(true);
    s = reducer(s, recordingCompleted());
    expect(s).toMatchObject({ phase: 'done', counts: { partsDone: 2, partsTotal: 2, bytesPending: 0 } });
  });

  it('keeps the error key and reason; a library error status too', () => {
    let s = reducer(
      initialRecordingState,
      recordingFailed({ errorKey: 'recording:uploadFailed', reason: 'network-exhausted' }),
    );
    expect(s).toMatchObject({
      phase: 'error',
      errorKey: 'recording:uploadFailed',
      errorReason: 'network-exhausted',
    });
    s = reducer(
      initialRecordingState,
      recordingStatusChanged({
        state: 'error',
        recording: false,
        partsDone: 0,
        partsTotal: 0,
        bytesPending: 0,
        mimeType: null,
        errorKey: 'recording:storeFailed',
      }),
    );
    expect(s.errorKey).toBe('recording:storeFailed');
  });

  it('resets on logout', () => {
    const s = reducer({ ...initialRecordingState, phase: 'recording', recordId: 3 }, loggedOut());
    expect(s).toEqual(initialRecordingState);
  });
});
