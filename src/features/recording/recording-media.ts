/**
 * The recording's media code, loaded as one chunk when the exam's recording is about to start (recording-page
 * `media()`): the recorder and its session, the encrypted chunk store, the S3 uploads and the recovery of
 * recordings an earlier page left. The tester pages before /examining never load it.
 */
export { openChunkStore } from '../../media/recording/chunk-store';
export { browserIsTypeSupported, chooseMimeType } from '../../media/recording/quality';
export {
  createRecordingSession,
  fromServerCredentials,
  recordingKeyOf,
} from '../../media/recording/recording-session';
export { UploadGiveUpError } from '../../media/recording/retry-policy';
export { drainStoredRecording, recordOfKey, recoverStored } from './recording-backlog';
