import { createSlice, type PayloadAction } from '@reduxjs/toolkit';
import type { PhoneCamera } from '../../api/phone';
import type { PhoneLostReason, PhoneState } from '@contract/constants/phone';
import { matchingPolled } from '../live/live-slice';

/**
 * The examinee's side of the phone camera (start-up is_phone_camera): the phone's state as the matching poll
 * reports it, and the pairing code the page shows as a QR code while no phone publishes (or the examinee wants
 * to pair another one).
 */
export interface PhonePairingState {
  /** The sitting has the phone camera (its matching carries `phone`). */
  enabled: boolean;
  state: PhoneState | null;
  /** ISO 8601: since when the phone is in `state`. */
  since: string | null;
  lostReason: PhoneLostReason | null;
  camera: PhoneCamera | null;
  /** The code on screen; a fresh one replaces it before it expires. */
  code: { code: string; expiresAt: string } | null;
  codeStatus: 'idle' | 'loading' | 'ready' | 'error';
  /** The examinee asked for a code while a phone is paired (to pair another phone). */
  pairAnother: boolean;
  /** The panel is on screen (codes are asked for only then). */
  shown: boolean;
}

const initialState: PhonePairingState = {
  enabled: false,
  state: null,
  since: null,
  lostReason: null,
  camera: null,
  code: null,
  codeStatus: 'idle',
  pairAnother: false,
  shown: false,
};

const phonePairingSlice = createSlice({
  name: 'phonePairing',
  initialState,
  reducers: {
    /** The phone panel appeared on the examinee's page. */
    phonePanelShown(state) {
      state.shown = true;
    },
    /** The phone panel left the page. */
    phonePanelHidden(state) {
      state.shown = false;
      state.code = null;
      state.codeStatus = 'idle';
    },
    /** A code is being asked for. */
    phoneCodeRequested(state) {
      state.codeStatus = 'loading';
    },
    /** A new code arrived (the older one stopped working on the server). */
    phoneCodeIssued(state, action: PayloadAction<{ code: string; expiresAt: string }>) {
      state.code = action.payload;
      state.codeStatus = 'ready';
    },
    /** No code could be had (network, or the sitting is over). */
    phoneCodeFailed(state) {
      state.code = null;
      state.codeStatus = 'error';
    },
    /** "Pair another phone" (or "cancel") while a phone is paired. */
    pairAnotherToggled(state, action: PayloadAction<boolean>) {
      state.pairAnother = action.payload;
      if (!action.payload) {
        state.code = null;
        state.codeStatus = 'idle';
      }
    },
  },
  extraReducers: (builder) => {
    builder.addCase(matchingPolled, (state, action) => {
      const phone = action.payload.phone;
      if (phone === undefined) return;
      const wasPaired = state.state === 'connecting' || state.state === 'live';
      state.enabled = phone !== null;
      state.state = phone?.state ?? null;
      state.since = phone?.since ?? null;
      state.lostReason = phone?.lostReason ?? null;
      state.camera = phone?.camera ?? null;
      // A phone that paired (or came back) uses the code on screen up: the next one is asked for when needed.
      const paired = state.state === 'connecting' || state.state === 'live';
      if (paired && !wasPaired) {
        state.pairAnother = false;
        state.code = null;
        state.codeStatus = 'idle';
      }
    });
  },
});

export const {
  phonePanelShown,
  phonePanelHidden,
  phoneCodeRequested,
  phoneCodeIssued,
  phoneCodeFailed,
  pairAnotherToggled,
} = phonePairingSlice.actions;
export default phonePairingSlice.reducer;

type WithPhonePairing = { phonePairing?: PhonePairingState };

/** Whether the page should show a QR code now: the sitting has the phone camera and none publishes. */
export function wantsCode(p: PhonePairingState): boolean {
  return p.shown && p.enabled && (p.pairAnother || p.state === 'waiting' || p.state === 'lost');
}

export const selectPhonePairing = (s: WithPhonePairing) => s.phonePairing ?? initialState;

/**
 * The exam may not start (log in to the exam system) while the sitting's phone camera does not publish: the
 * organiser asked for a second camera. Once the exam runs, a lost phone is shown and logged but does not stop it.
 */
export const selectPhoneBlocksExamStart = (s: WithPhonePairing) => {
  const p = s.phonePairing;
  return !!p && p.enabled && p.state !== 'live';
};
