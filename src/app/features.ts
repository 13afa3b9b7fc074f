import { createAction, type Reducer } from '@reduxjs/toolkit';
import type { JapaneseTexts } from '../i18n';
import type { AppStartListening } from './listener';

export type { JapaneseTexts };

/**
 * A feature that is loaded with the routes that need it (the login route must not load examinee, checker,
 * management, media or AWS code): its reducers, its listeners and its texts. The router registers a page
 * module's `features` (and adds the page's own `texts`) before the page renders; tests register them all up
 * front.
 */
export interface FeatureDef {
  name: string;
  reducers: Record<string, Reducer>;
  addListeners?: (startListening: AppStartListening) => void;
  /**
   * Texts the feature shows on every page that registers it: its effects' alerts and messages, and what its
   * components on those pages show. Texts of one page's views are that page's (its module's `texts`).
   */
  texts?: JapaneseTexts;
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
