import { useCallback } from 'react';
import { useTranslation } from 'react-i18next';
import type { TranslationKey } from '../../lib/translation-key';

/** Translates a key that is only known at run time (keys carried in state, e.g. `errors:code.login_failed`). */
export type TextFn = (key: TranslationKey, values?: Record<string, string | number>) => string;

/**
 * `t` for keys that travel through state (STYLE habit 14: "state and alerts carry keys"). The keys are typed
 * ({@link TranslationKey}), so a key that does not exist fails the type check where it enters the state.
 */
export function useText(): TextFn {
  // The instance's `t` knows every namespace (`ns:key`); useTranslation() is still what re-renders on a
  // language change, and the language in the dependencies gives the new language a new function.
  const { i18n } = useTranslation();
  const lng = i18n.language;
  return useCallback<TextFn>((key, values) => i18n.t(key, { ...values, lng }), [i18n, lng]);
}
