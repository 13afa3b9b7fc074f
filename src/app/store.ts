import { combineReducers, configureStore } from '@reduxjs/toolkit';
import startup from '../features/startup/startup-slice';
import session from '../features/session/session-slice';
import errors from '../features/errors/errors-slice';
import layout from '../features/layout/layout-slice';
import monitoring from '../features/monitoring/monitoring-slice';
import examinees from '../features/examinees/examinees-slice';
import management from '../features/management/management-slice';
import tester from '../features/tester/tester-slice';
import identification from '../features/identification/identification-slice';
import live from '../features/live/live-slice';
import { createAppListenerMiddleware } from './listener';
import { addAppListeners } from './app-listeners';

/** One reducer per spec store module (STYLE habit 1). */
const rootReducer = combineReducers({ startup, session, errors, layout, monitoring, examinees, management, tester, identification, live });

export type RootState = ReturnType<typeof rootReducer>;

export function setupStore(preloadedState?: Partial<RootState>) {
  const listener = createAppListenerMiddleware();
  const store = configureStore({
    reducer: rootReducer,
    preloadedState: preloadedState as RootState | undefined,
    middleware: (getDefault) => getDefault().prepend(listener.middleware),
  });
  addAppListeners(listener.startListening, store);
  return store;
}

export type AppStore = ReturnType<typeof setupStore>;
export type AppDispatch = AppStore['dispatch'];
