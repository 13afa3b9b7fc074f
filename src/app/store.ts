import { combineReducers, configureStore } from '@reduxjs/toolkit';
import startup from '../features/startup/startup-slice';
import session from '../features/session/session-slice';
import errors from '../features/errors/errors-slice';
import layout from '../features/layout/layout-slice';
import { createAppListenerMiddleware } from './listener';
import { addAppListeners } from './app-listeners';

/** One reducer per spec store module (STYLE habit 1). */
const rootReducer = combineReducers({ startup, session, errors, layout });

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
