import { createListenerMiddleware, type ListenerMiddlewareInstance, type TypedStartListening } from '@reduxjs/toolkit';
import type { AppDispatch, RootState } from './store';

export type AppStartListening = TypedStartListening<RootState, AppDispatch>;

/** A fresh listener middleware for one store (each test store gets its own). */
export function createAppListenerMiddleware(): ListenerMiddlewareInstance<RootState, AppDispatch> {
  return createListenerMiddleware<RootState, AppDispatch>();
}
