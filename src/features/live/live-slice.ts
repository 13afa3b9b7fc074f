import { createSlice, type PayloadAction } from '@reduxjs/toolkit';
import { DEFAULT_MATCHING_TIMEOUT_SECONDS } from '@contract/constants/matching';
import type { PhoneView } from '../../api/phone';

/** Status of the live channel (the KVS master), spec §4 matching/WebRTC. */
export type LiveStatus = 'idle' | 'connecting' | 'live' | 'reconnecting' | 'lost' | 'stopped';

export interface LiveState {
  status: LiveStatus;
  /** The matching poll loop runs. */
  polling: boolean;
  testerId: number | null;
  /** Poll interval in seconds (server result, else start-up, else 5). */
  matchingTimeout: number;
  monitorId: number | null;
  checkerId: number | null;
  /** Matching value of spec §4: -1 invalid, 0 none, 1 waiting, 2 connected. */
  matchingStatus: number;
  channelName: string | null;
  viewerIds: string[];
  /** How many times signaling could not be (re)opened and the matching was deleted. */
  signalingFailures: number;
  /** Live stills: seconds between two (0 = off) and the analysis (0 none, 1 AI realtime, 2 AI post analysis). */
  captureInterval: number;
  captureType: number;
}

const initialState: LiveState = {
  status: 'idle',
  polling: false,
  testerId: null,
  matchingTimeout: DEFAULT_MATCHING_TIMEOUT_SECONDS,
  monitorId: null,
  checkerId: null,
  matchingStatus: 0,
  channelName: null,
  viewerIds: [],
  signalingFailures: 0,
  captureInterval: 0,
  captureType: 0,
};

const liveSlice = createSlice({
  name: 'live',
  initialState,
  reducers: {
    /** Next on env-setting (or a tester page after a reload) asked to start transmission (spec §1). */
    liveStartRequested(state, action: PayloadAction<{ testerId: number; matchingTimeout: number | null }>) {
      state.polling = true;
      state.testerId = action.payload.testerId;
      state.matchingTimeout = action.payload.matchingTimeout || DEFAULT_MATCHING_TIMEOUT_SECONDS;
      if (state.status === 'stopped' || state.status === 'lost') state.status = 'idle';
    },
    /** The exam ended, the tester logged out or was kicked: stop matching and the master. */
    liveStopRequested(state) {
      state.polling = false;
    },
    /** A matching poll answered. */
    matchingPolled(
      state,
      action: PayloadAction<{
        matchingTimeout: number;
        monitorId: number | null;
        checkerId: number | null;
        matchingStatus: number;
        channelName: string | null;
        /** The sitting's capture settings, when the matching carried its start-up parameters. */
        capture?: { interval: number; type: number };
        /** The sitting's phone camera (null: the sitting has none); the phonePairing slice keeps it. */
        phone?: PhoneView | null;
      }>,
    ) {
      const p = action.payload;
      if (p.capture) {
        state.captureInterval = p.capture.interval;
        state.captureType = p.capture.type;
      }
      if (p.matchingTimeout > 0) state.matchingTimeout = p.matchingTimeout;
      state.monitorId = p.monitorId;
      state.checkerId = p.checkerId;
      state.matchingStatus = p.matchingStatus;
      state.channelName = p.channelName;
    },
    /** A poll (or another live-channel call) failed with a network error (spec §4 disconnect flag). */
    networkErrorOccurred() {},
    /** The disconnect flag's matchingTimeout timer ran out (spec §4). */
    disconnectFlagReset() {},
    /** The master's status changed. */
    masterStatusChanged(state, action: PayloadAction<LiveStatus>) {
      state.status = action.payload;
      if (action.payload !== 'live' && action.payload !== 'reconnecting') state.viewerIds = [];
    },
    /** The set of connected viewers changed. */
    viewersChanged(state, action: PayloadAction<string[]>) {
      state.viewerIds = action.payload;
    },
    /** Signaling failed 3 times and the matching was deleted (spec §4). */
    signalingLost(state) {
      state.signalingFailures += 1;
      state.status = 'lost';
      state.viewerIds = [];
    },
    /** Matching command 1 arrived: the signaling channel is being reset. */
    channelResetRequested(state) {
      state.status = 'reconnecting';
    },
    /** Matching and master stopped. */
    liveStopped(state) {
      state.polling = false;
      state.status = 'stopped';
      state.viewerIds = [];
      // Not connected to anyone any more (a kicked or leaving page must not say it is watched).
      state.matchingStatus = 0;
    },
  },
});

export const {
  liveStartRequested,
  liveStopRequested,
  matchingPolled,
  networkErrorOccurred,
  disconnectFlagReset,
  masterStatusChanged,
  viewersChanged,
  signalingLost,
  channelResetRequested,
  liveStopped,
} = liveSlice.actions;
export default liveSlice.reducer;

type WithLive = { live?: LiveState };
/** The live state; its initial state until a route registered the live feature (app/store.ts). */
export const selectLive = (s: WithLive): LiveState => s.live ?? initialState;
export const selectLiveStatus = (s: WithLive) => selectLive(s).status;
export const selectMatchingConnected = (s: WithLive) => selectLive(s).matchingStatus === 2;
