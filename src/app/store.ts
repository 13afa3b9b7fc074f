import { combineReducers, configureStore, type Reducer } from '@reduxjs/toolkit';
import startup from '../features/startup/startup-slice';
import session from '../features/session/session-slice';
import errors from '../features/errors/errors-slice';
import layout from '../features/layout/layout-slice';
import type monitoring from '../features/monitoring/monitoring-slice';
import type examinees from '../features/examinees/examinees-slice';
import type management from '../features/management/management-slice';
import type tester from '../features/tester/tester-slice';
import type identification from '../features/identification/identification-slice';
import type live from '../features/live/live-slice';
import type recording from '../features/recording/recording-slice';
import type accounts from '../features/accounts/accounts-slice';
import type widerView from '../features/wider-view/wider-view-slice';
import type phoneCamera from '../features/phone-camera/phone-camera-slice';
import type phonePairing from '../features/phone-pairing/phone-pairing-slice';
import { createAppListenerMiddleware, type AppStartListening } from './listener';
import { addAppListeners } from './app-listeners';
import { getDefaultFeatures, type FeatureDef } from './features';
import { loadNamespaces } from '../i18n';

/** Slices every page needs; they are in the entry chunk. */
const coreReducers = { startup, session, errors, layout };

/**
 * The whole state, one reducer per spec store module (STYLE habit 1). Feature slices are added when a route
 * that uses them loads (app/features.ts), so code reading another feature's state must allow it to be absent
 * until then (the header and the error rules do).
 */
export type RootState = { [K in keyof typeof coreReducers]: ReturnType<(typeof coreReducers)[K]> } & {
  monitoring: ReturnType<typeof monitoring>;
  examinees: ReturnType<typeof examinees>;
  management: ReturnType<typeof management>;
  tester: ReturnType<typeof tester>;
  identification: ReturnType<typeof identification>;
  live: ReturnType<typeof live>;
  recording: ReturnType<typeof recording>;
  accounts: ReturnType<typeof accounts>;
  widerView: ReturnType<typeof widerView>;
  phoneCamera: ReturnType<typeof phoneCamera>;
  phonePairing: ReturnType<typeof phonePairing>;
};

interface Registry {
  reducers: Record<string, Reducer>;
  names: Set<string>;
  startListening: AppStartListening;
  replace(): void;
}
const registries = new WeakMap<object, Registry>();

export function setupStore(preloadedState?: Partial<RootState>) {
  const listener = createAppListenerMiddleware();
  const reducers: Record<string, Reducer> = { ...coreReducers };
  const defaults = getDefaultFeatures();
  for (const f of defaults) Object.assign(reducers, f.reducers);
  const store = configureStore({
    reducer: combineReducers(reducers) as unknown as Reducer<RootState>,
    preloadedState: preloadedState as RootState | undefined,
    middleware: (getDefault) => getDefault().prepend(listener.middleware),
  });
  addAppListeners(listener.startListening, store);
  const registry: Registry = {
    reducers,
    names: new Set(),
    startListening: listener.startListening,
    replace: () => store.replaceReducer(combineReducers(reducers) as unknown as Reducer<RootState>),
  };
  registries.set(store, registry);
  for (const f of defaults) {
    registry.names.add(f.name);
    f.addListeners?.(listener.startListening);
  }
  return store;
}

export type AppStore = ReturnType<typeof setupStore>;
export type AppDispatch = AppStore['dispatch'];

/**
 * Registers features with a store once each: reducers (the store's reducer is replaced, and the new slices
 * start from their initial state), listeners, and i18n namespaces.
 */
export async function registerFeatures(store: AppStore, defs: readonly FeatureDef[]): Promise<void> {
  const registry = registries.get(store);
  if (!registry) throw new Error('registerFeatures: not a store made by setupStore');
  const fresh = defs.filter((f) => !registry.names.has(f.name));
  if (fresh.length === 0) return;
  await loadNamespaces(fresh.flatMap((f) => f.namespaces ?? []));
  for (const f of fresh) {
    if (registry.names.has(f.name)) continue;
    registry.names.add(f.name);
    Object.assign(registry.reducers, f.reducers);
  }
  registry.replace();
  for (const f of fresh) f.addListeners?.(registry.startListening);
}
