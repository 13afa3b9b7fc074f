/**
 * The recorder's failures and their i18n keys. Apart from the recorder, so code that only names them (the
 * recording feature, before the recording's media code has loaded) does not load the recorder.
 */

/** The i18n key of spec §8 "録画開始に失敗しました。" (the UI owns the text). */
export const RECORDING_START_FAILED = 'recording:startFailed';
/** The i18n key for a recorder that stopped by itself mid-exam (camera unplugged, encoder error). */
export const RECORDING_FAILED = 'recording:failed';
/** The i18n key for a chunk that could not be stored (quota full, storage broken). */
export const RECORDING_STORE_FAILED = 'recording:storeFailed';

/** The message keys a `RecordingError` carries. */
export type RecordingErrorKey =
  typeof RECORDING_START_FAILED | typeof RECORDING_FAILED | typeof RECORDING_STORE_FAILED;

/** A recorder failure; `messageKey` is what the UI translates. */
export class RecordingError extends Error {
  override readonly name = 'RecordingError';
  constructor(
    readonly messageKey: RecordingErrorKey,
    options?: { cause?: unknown },
  ) {
    super(messageKey, options);
  }
}
