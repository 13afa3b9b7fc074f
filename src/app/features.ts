import { createAction, type Reducer } from '@reduxjs/toolkit';
import type { AppStartListening } from './listener';

/**
 * A feature that is loaded with the routes that need it (the login route must not load examinee, checker,
 * management, media or AWS code): its reducers, its listeners and its i18n namespaces. The router registers
 * a page module's `features` before the page renders; tests register them all up front.
 */
export interface FeatureDef {
  name: string;
  reducers: Record<string, Reducer>;
  addListeners?: (startListening: AppStartListening) => void;
  /** i18n namespaces the feature's components use (loaded on demand, see i18n/index.ts). */
  namespaces?: readonly string[];
}

/** Features were registered with the store (by name): their slices start from their initial state. */
export const featuresRegistered = createAction<string[]>('app/featuresRegistered');

let defaultFeatures: readonly FeatureDef[] = [];

/** Features every new store starts with (the test setup registers all of them). */
export function setDefaultFeatures(defs: readonly FeatureDef[]): void {
  defaultFeatures = defs;
}

export function getDefaultFeatures(): readonly FeatureDef[] {
  return defaultFeatures;
}
