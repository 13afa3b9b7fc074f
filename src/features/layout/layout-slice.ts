import { createSlice, type PayloadAction } from '@reduxjs/toolkit';
import type { TranslationKey } from '../../lib/translation-key';

export type AlertType = 'success' | 'caution' | 'error';

/** An alert or confirm modal; text comes as i18n keys (with values) or as server text. */
export interface ModalRequest {
  id: string;
  kind: 'alert' | 'confirm';
  alertType: AlertType;
  titleKey?: TranslationKey;
  messageKey?: TranslationKey;
  messageValues?: Record<string, string | number>;
  /** Server-provided text shown as-is (e.g. an error message). */
  messageText?: string;
}

/** Common layout state (spec §3): layout visibility, header-logout-disabled, loading and upload counters, modals. */
export interface LayoutState {
  visible: boolean;
  headerLogoutDisabled: boolean;
  loadingCount: number;
  uploadingCount: number;
  modals: ModalRequest[];
}

const initialState: LayoutState = {
  visible: true,
  headerLogoutDisabled: false,
  loadingCount: 0,
  uploadingCount: 0,
  modals: [],
};

const layoutSlice = createSlice({
  name: 'layout',
  initialState,
  reducers: {
    /** Long work started: the loading overlay shows while the counter is above 0. */
    loadingStarted(state) {
      state.loadingCount += 1;
    },
    /** Long work finished. */
    loadingFinished(state) {
      state.loadingCount = Math.max(0, state.loadingCount - 1);
    },
    /** An upload started: the upload alert shows while the counter is above 0. */
    uploadStarted(state) {
      state.uploadingCount += 1;
    },
    uploadFinished(state) {
      state.uploadingCount = Math.max(0, state.uploadingCount - 1);
    },
    /** A page asked for the header logout button to be disabled or enabled. */
    headerLogoutDisabledChanged(state, action: PayloadAction<boolean>) {
      state.headerLogoutDisabled = action.payload;
    },
    layoutVisibilityChanged(state, action: PayloadAction<boolean>) {
      state.visible = action.payload;
    },
    /** An alert or confirm modal was requested. */
    modalOpened(state, action: PayloadAction<ModalRequest>) {
      state.modals.push(action.payload);
    },
    /** The user answered (or closed) a modal; `confirmed` is true for OK. */
    modalClosed(state, action: PayloadAction<{ id: string; confirmed: boolean }>) {
      state.modals = state.modals.filter((m) => m.id !== action.payload.id);
    },
  },
});

export const {
  loadingStarted,
  loadingFinished,
  uploadStarted,
  uploadFinished,
  headerLogoutDisabledChanged,
  layoutVisibilityChanged,
  modalOpened,
  modalClosed,
} = layoutSlice.actions;
export default layoutSlice.reducer;

type WithLayout = { layout: LayoutState };
export const selectIsLoading = (s: WithLayout) => s.layout.loadingCount > 0;
export const selectIsUploading = (s: WithLayout) => s.layout.uploadingCount > 0;
export const selectTopModal = (s: WithLayout) => s.layout.modals[0] ?? null;
export const selectHeaderLogoutDisabled = (s: WithLayout) => s.layout.headerLogoutDisabled;
