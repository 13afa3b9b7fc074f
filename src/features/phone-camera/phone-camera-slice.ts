import { createSlice, type PayloadAction } from '@reduxjs/toolkit';
import type { PhoneCamera } from '../../api/phone';
import type { DeviceErrorCode } from '../../media/devices';
import type { PhoneRecordingState } from './phone-recording';

/**
 * The phone's own page (`/phone`, opened from the QR code on the examinee's page) as a state machine:
 * `pairing` the code is being spent → `choose` which camera → `starting` it → `running` (polling and
 * publishing) → `ended` (the sitting is over, or the examinee stopped the phone here). Off the happy path:
 * `invalid` (no code, or one already used, expired or replaced), `cameraFailed`, `replaced` (another phone was
 * paired with the sitting).
 */
export type PhoneStep =
  'pairing' | 'invalid' | 'choose' | 'starting' | 'cameraFailed' | 'running' | 'ended' | 'replaced';

/** While running: whether the phone reaches the server and publishes (`connected`), or is trying again. */
export type PhoneConnection = 'connecting' | 'connected' | 'reconnecting';

/** Why the phone's page ended. */
export type PhoneEndReason = 'sittingEnded' | 'stopped' | 'sessionEnded';

export interface PhoneCameraState {
  step: PhoneStep;
  /** Whose sitting this phone belongs to (shown so the examinee sees it paired with the right exam). */
  examUserName: string;
  loginId: string;
  testName: string;
  camera: PhoneCamera | null;
  connection: PhoneConnection;
  /** A checker's viewer receives the phone's camera now. */
  watched: boolean;
  cameraError: DeviceErrorCode | null;
  /** Why pairing failed: the code cannot be spent (`invalid`), or the server was not reached (`network`). */
  pairingError: 'invalid' | 'network' | null;
  endReason: PhoneEndReason | null;
  /** Poll interval in seconds (server value). */
  matchingTimeout: number;
  /** The phone's own recording of its camera (off while the sitting records nothing). */
  recording: PhoneRecordingState;
}

const initialState: PhoneCameraState = {
  step: 'pairing',
  examUserName: '',
  loginId: '',
  testName: '',
  camera: null,
  connection: 'connecting',
  watched: false,
  cameraError: null,
  pairingError: null,
  endReason: null,
  matchingTimeout: 5,
  recording: 'off',
};

const phoneCameraSlice = createSlice({
  name: 'phoneCamera',
  initialState,
  reducers: {
    /** The phone's page opened (with the code it was opened with, or none after a reload). */
    phonePageOpened(state) {
      if (state.step === 'pairing' || state.step === 'invalid') state.step = 'pairing';
      state.pairingError = null;
    },
    /** "Try again" after the server could not be reached while pairing. */
    phonePairingRetried(state) {
      state.step = 'pairing';
      state.pairingError = null;
    },
    /** The code was spent (or a saved session of this page was found): the phone belongs to this sitting. */
    phonePaired(
      state,
      action: PayloadAction<{
        examUserName: string;
        loginId: string;
        testName: string;
        matchingTimeout: number;
      }>,
    ) {
      Object.assign(state, action.payload);
      state.step = 'choose';
    },
    /** No code, one that cannot be spent, or no answer from the server. */
    phonePairingFailed(state, action: PayloadAction<'invalid' | 'network'>) {
      state.step = 'invalid';
      state.pairingError = action.payload;
    },
    /** The examinee chose the rear or the front camera (also a switch while running). */
    phoneCameraChosen(state, action: PayloadAction<PhoneCamera>) {
      state.camera = action.payload;
      state.cameraError = null;
      if (state.step !== 'running') state.step = 'starting';
    },
    /** The camera could not be opened. */
    phoneCameraFailed(state, action: PayloadAction<DeviceErrorCode>) {
      state.cameraError = action.payload;
      state.step = 'cameraFailed';
    },
    /** The camera is open: polling and publishing begin. */
    phoneCameraStarted(state) {
      state.step = 'running';
      state.connection = 'connecting';
    },
    /** A poll answered, or the publishing's state changed. */
    phoneConnectionChanged(state, action: PayloadAction<{ connection: PhoneConnection; watched?: boolean }>) {
      state.connection = action.payload.connection;
      if (action.payload.watched !== undefined) state.watched = action.payload.watched;
    },
    /** The poll interval the server gave. */
    phonePollIntervalChanged(state, action: PayloadAction<number>) {
      if (action.payload > 0) state.matchingTimeout = action.payload;
    },
    /** The phone's recording changed state. */
    phoneRecordingChanged(state, action: PayloadAction<PhoneRecordingState>) {
      state.recording = action.payload;
    },
    /** The examinee pressed stop on the phone. */
    phoneStopRequested() {},
    /** The phone's page is done: the sitting ended, it was stopped, or its session ended. */
    phoneEnded(state, action: PayloadAction<PhoneEndReason>) {
      state.step = 'ended';
      state.endReason = action.payload;
      state.watched = false;
    },
    /** Another phone was paired with the sitting in place of this one. */
    phoneReplaced(state) {
      state.step = 'replaced';
      state.watched = false;
    },
  },
});

export const {
  phonePageOpened,
  phonePairingRetried,
  phonePaired,
  phonePairingFailed,
  phoneCameraChosen,
  phoneCameraFailed,
  phoneCameraStarted,
  phoneConnectionChanged,
  phonePollIntervalChanged,
  phoneRecordingChanged,
  phoneStopRequested,
  phoneEnded,
  phoneReplaced,
} = phoneCameraSlice.actions;
export default phoneCameraSlice.reducer;

type WithPhoneCamera = { phoneCamera?: PhoneCameraState };
export const selectPhoneCamera = (s: WithPhoneCamera) => s.phoneCamera ?? initialState;
