import {
  createListenerMiddleware,
  type ListenerMiddlewareInstance,
  type TypedStartListening,
} from '@reduxjs/toolkit';
import type { AppThunkDispatch, RootState } from './store';

export type AppStartListening = TypedStartListening<RootState, AppThunkDispatch>;

/** A fresh listener middleware for one store (each test store gets its own). */
export function createAppListenerMiddleware(): ListenerMiddlewareInstance<RootState, AppThunkDispatch> {
  return createListenerMiddleware<RootState, AppThunkDispatch>();
}
