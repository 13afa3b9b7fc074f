import { createSlice, type PayloadAction } from '@reduxjs/toolkit';
import type { TranslationKey } from '../../lib/translation-key';

/** Monitor identity check (spec §4): waiting → pending (AUTHENTICATING sent) → accepted | rejected. */
export type MonitorCheckStatus = 'preparing' | 'sending' | 'pending' | 'confirming' | 'accepted' | 'rejected';

/**
 * AI identity check (spec §4): face photo, then ID photo, with a confirmation before each upload;
 * 'fallback' when the AI check cannot succeed and the configured fallback applies.
 */
export type AiPhase =
  'loading' | 'face' | 'faceConfirm' | 'idCard' | 'idCardConfirm' | 'sending' | 'passed' | 'fallback';

/** What happens when the AI check cannot succeed (server `fallback`, contract AI_FAILED_MODE). */
export type AiFallback = 'logout' | 'manual' | 'continue';

/** Number of check-list items on /identification. */
export const CHECKLIST_SIZE = 4;

export interface IdentificationState {
  monitor: { status: MonitorCheckStatus; checklist: boolean[]; errorKey: TranslationKey | null };
  ai: {
    phase: AiPhase;
    limits: { face: number; idCard: number; all: number };
    retries: { face: number; idCard: number; all: number };
    idCardRequired: boolean;
    fallback: AiFallback;
    /** The server said the AI check is unavailable (no AI workers, or the provider failed). */
    unavailable: boolean;
    /** i18n key of the last result message. */
    messageKey: TranslationKey | null;
    messageValues: Record<string, number | string>;
    errorKey: TranslationKey | null;
  };
}

const initialState: IdentificationState = {
  monitor: { status: 'preparing', checklist: Array<boolean>(CHECKLIST_SIZE).fill(false), errorKey: null },
  ai: {
    phase: 'loading',
    limits: { face: 3, idCard: 3, all: 5 },
    retries: { face: 0, idCard: 0, all: 0 },
    idCardRequired: true,
    fallback: 'manual',
    unavailable: false,
    messageKey: null,
    messageValues: {},
    errorKey: null,
  },
};

const identificationSlice = createSlice({
  name: 'identification',
  initialState,
  reducers: {
    /** A check-list item was ticked or unticked. */
    checklistItemToggled(state, action: PayloadAction<number>) {
      const i = action.payload;
      state.monitor.checklist[i] = !state.monitor.checklist[i];
    },
    /** The examinee asked the monitor to check (AUTHENTICATING is being sent). */
    monitorCheckSending(state) {
      state.monitor.status = 'sending';
      state.monitor.errorKey = null;
    },
    monitorCheckSent(state) {
      state.monitor.status = 'pending';
    },
    monitorCheckFailed(state, action: PayloadAction<TranslationKey>) {
      state.monitor.status = 'preparing';
      state.monitor.errorKey = action.payload;
    },
    /** ACCEPTED arrived: waiting for the tester status IDENTIFICATED (1 s polls). */
    monitorAcceptedReceived(state) {
      state.monitor.status = 'confirming';
    },
    monitorCheckAccepted(state) {
      state.monitor.status = 'accepted';
    },
    monitorCheckRejected(state) {
      state.monitor.status = 'rejected';
    },
    /** ai_auth/status answered. */
    aiStatusLoaded(
      state,
      action: PayloadAction<{
        process: number;
        status: number;
        limits: { face: number; idCard: number; all: number };
        retries: { face: number; idCard: number; all: number };
        idCardRequired: boolean;
        fallback: AiFallback;
      }>,
    ) {
      const p = action.payload;
      state.ai.limits = p.limits;
      state.ai.retries = p.retries;
      state.ai.idCardRequired = p.idCardRequired;
      state.ai.fallback = p.fallback;
      state.ai.phase =
        p.status === 1 ? 'passed' : p.status > 1 ? 'fallback' : p.process === 1 ? 'idCard' : 'face';
    },
    aiPhaseChanged(state, action: PayloadAction<AiPhase>) {
      state.ai.phase = action.payload;
    },
    /** An attempt answered: retries, message and, when it could not succeed, the fallback. */
    aiAttemptAnswered(
      state,
      action: PayloadAction<{
        retries: { face: number; idCard: number; all: number };
        messageKey: TranslationKey | null;
        messageValues: Record<string, number | string>;
        unavailable: boolean;
      }>,
    ) {
      state.ai.retries = action.payload.retries;
      state.ai.messageKey = action.payload.messageKey;
      state.ai.messageValues = action.payload.messageValues;
      state.ai.unavailable = state.ai.unavailable || action.payload.unavailable;
    },
    aiErrorOccurred(state, action: PayloadAction<TranslationKey | null>) {
      state.ai.errorKey = action.payload;
    },
  },
});

export const {
  checklistItemToggled,
  monitorCheckSending,
  monitorCheckSent,
  monitorCheckFailed,
  monitorAcceptedReceived,
  monitorCheckAccepted,
  monitorCheckRejected,
  aiStatusLoaded,
  aiPhaseChanged,
  aiAttemptAnswered,
  aiErrorOccurred,
} = identificationSlice.actions;
export default identificationSlice.reducer;

type WithId = { identification?: IdentificationState };
/** The identification state; its initial state until a route registered the identification feature (app/store.ts). */
export const selectIdentification = (s: WithId): IdentificationState => s.identification ?? initialState;
export const selectMonitorCheck = (s: WithId) => selectIdentification(s).monitor;
export const selectAi = (s: WithId) => selectIdentification(s).ai;
