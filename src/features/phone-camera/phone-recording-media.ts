/**
 * The phone recording's media code, loaded as one chunk when the phone's first recording starts
 * (PhoneRecording): the recorder and its session, the encrypted chunk store, the S3 uploads. The /phone page
 * renders without it.
 */
export { openChunkStore } from '../../media/recording/chunk-store';
export { browserIsTypeSupported, chooseMimeType } from '../../media/recording/quality';
export { createRecordingSession, fromServerCredentials } from '../../media/recording/recording-session';
