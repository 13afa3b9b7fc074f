import {
  createListenerMiddleware,
  type ListenerMiddlewareInstance,
  type ThunkDispatch,
  type TypedStartListening,
  type UnknownAction,
} from '@reduxjs/toolkit';
import type { RootState } from './store';

/** The store's dispatch, written without the store type so listener types do not depend on setupStore. */
export type ListenerDispatch = ThunkDispatch<RootState, unknown, UnknownAction>;
export type AppStartListening = TypedStartListening<RootState, ListenerDispatch>;

/** A fresh listener middleware for one store (each test store gets its own). */
export function createAppListenerMiddleware(): ListenerMiddlewareInstance<RootState, ListenerDispatch> {
  return createListenerMiddleware<RootState, ListenerDispatch>();
}
