import {
  combineSlices,
  configureStore,
  type ThunkAction,
  type ThunkDispatch,
  type UnknownAction,
} from '@reduxjs/toolkit';
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
import { featuresRegistered, getDefaultFeatures, type FeatureDef } from './features';
import { addTexts } from '../i18n';

/**
 * The slices of the features a route registers (app/features.ts), one per spec store module (STYLE habit 1).
 * They are absent until then, so in RootState they are optional: code reading another feature's state before
 * its route loaded says what it does without it (`s.tester?.testerState ?? null`); a feature's own code runs
 * only once it is registered.
 */
export interface LazyLoadedSlices {
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
}

/** The root reducer of one store: the slices every page needs (in the entry chunk), and room for the rest. */
function createRootReducer() {
  return combineSlices({ startup, session, errors, layout }).withLazyLoadedSlices<LazyLoadedSlices>();
}

export type RootState = ReturnType<ReturnType<typeof createRootReducer>>;

interface Registry {
  rootReducer: ReturnType<typeof createRootReducer>;
  names: Set<string>;
  startListening: AppStartListening;
}
const registries = new WeakMap<object, Registry>();

/** Adds features' reducers to a store's root reducer (RTK's `inject`) and remembers their names. */
function injectFeatures(registry: Registry, defs: readonly FeatureDef[]): FeatureDef[] {
  const fresh = defs.filter((f) => !registry.names.has(f.name));
  for (const f of fresh) {
    registry.names.add(f.name);
    for (const [reducerPath, reducer] of Object.entries(f.reducers))
      registry.rootReducer.inject({ reducerPath: reducerPath as keyof LazyLoadedSlices, reducer });
  }
  return fresh;
}

export function setupStore(preloadedState?: Partial<RootState>) {
  const listener = createAppListenerMiddleware();
  const rootReducer = createRootReducer();
  const registry: Registry = { rootReducer, names: new Set(), startListening: listener.startListening };
  // Features every new store starts with (tests) are in before the store, so their preloaded state is kept.
  const defaults = injectFeatures(registry, getDefaultFeatures());
  const store = configureStore({
    reducer: rootReducer,
    preloadedState,
    middleware: (getDefault) => getDefault().prepend(listener.middleware),
  });
  addAppListeners(listener.startListening, store);
  registries.set(store, registry);
  for (const f of defaults) f.addListeners?.(listener.startListening);
  return store;
}

export type AppStore = ReturnType<typeof setupStore>;
export type AppDispatch = AppStore['dispatch'];

/** A thunk of this app (the one thunk type): what `dispatch(thunk)` runs, with the store's dispatch and state. */
export type AppThunk<R = void> = ThunkAction<R, RootState, unknown, UnknownAction>;
/** The dispatch a thunk or a listener is given: it dispatches actions and AppThunks. */
export type AppThunkDispatch = ThunkDispatch<RootState, unknown, UnknownAction>;

/**
 * Registers features with a store once each: their reducers (injected; `featuresRegistered` gives the new
 * slices their initial state at once), listeners, and texts.
 */
export async function registerFeatures(store: AppStore, defs: readonly FeatureDef[]): Promise<void> {
  const registry = registries.get(store);
  if (!registry) throw new Error('registerFeatures: not a store made by setupStore');
  if (defs.every((f) => registry.names.has(f.name))) return;
  await addTexts(Object.assign({}, ...defs.filter((f) => !registry.names.has(f.name)).map((f) => f.texts)));
  const fresh = injectFeatures(registry, defs);
  if (fresh.length === 0) return;
  store.dispatch(featuresRegistered(fresh.map((f) => f.name)));
  for (const f of fresh) f.addListeners?.(registry.startListening);
}
