import { createSlice, type PayloadAction } from '@reduxjs/toolkit';
import type { SerializedApiError } from '../../api/api-error';
import { hashString } from '../../lib/hash';

/** Error records keyed by a hash of the endpoint (spec §3 "Error record"). */
export interface ErrorsState {
  byEndpoint: Record<string, SerializedApiError & { at: number }>;
}

const initialState: ErrorsState = { byEndpoint: {} };

const errorsSlice = createSlice({
  name: 'errors',
  initialState,
  reducers: {
    /** A server call failed (any non-200 status, or no response). */
    apiErrorRecorded(state, action: PayloadAction<SerializedApiError & { at: number }>) {
      state.byEndpoint[hashString(action.payload.endpoint)] = action.payload;
    },
    /** The user dismissed, or a later success cleared, the error of an endpoint. */
    apiErrorCleared(state, action: PayloadAction<string>) {
      delete state.byEndpoint[hashString(action.payload)];
    },
  },
});

export const { apiErrorRecorded, apiErrorCleared } = errorsSlice.actions;
export default errorsSlice.reducer;

type WithErrors = { errors: ErrorsState };
export const selectErrorFor = (endpoint: string) => (s: WithErrors) =>
  s.errors.byEndpoint[hashString(endpoint)] ?? null;
