import { createAsyncThunk } from '@reduxjs/toolkit';
import * as authApi from '../../api/auth';
import { isApiError, type SerializedApiError } from '../../api/api-error';
import { assertActor } from '../../app/permissions';
import {
  loggedIn,
  loggedOut,
  loginFailed,
  loginStarted,
  logoutStarted,
  type LoginInfo,
} from './session-slice';

/** Logs in (spec §7 login); on success the login result is stored. */
export const loginRequested = createAsyncThunk<
  LoginInfo,
  { loginId: string; password: string },
  { rejectValue: SerializedApiError }
>('session/loginRequested', async ({ loginId, password }, { dispatch, getState, rejectWithValue }) => {
  dispatch(loginStarted());
  try {
    // The short URL the start-up came through (its parameters are bound to a tester's sitting).
    const urlKey = (getState() as { startup?: { params?: { urlKey?: string } } }).startup?.params?.urlKey;
    const r = urlKey
      ? await authApi.login(loginId, password, urlKey)
      : await authApi.login(loginId, password);
    const info: LoginInfo = { ...r, actor: assertActor(r.actor) };
    dispatch(loggedIn(info));
    return info;
  } catch (e) {
    dispatch(loginFailed());
    if (isApiError(e)) return rejectWithValue(e.toSerializable());
    throw e;
  }
});

/** Logs out on the server (best effort) and clears the login state either way. */
export const logoutRequested = createAsyncThunk('session/logoutRequested', async (_: void, { dispatch }) => {
  dispatch(logoutStarted());
  try {
    await authApi.logout();
  } catch {
    // The session ends locally even if the server could not be told.
  }
  dispatch(loggedOut());
});
