import { useCallback } from 'react';
import { useTranslation } from 'react-i18next';

/** Translates a key that is only known at run time (keys carried in state, e.g. `errors:code.login_failed`). */
export type TextFn = (key: string, values?: Record<string, string | number>) => string;

/**
 * `t` for run-time keys. Typed keys cover literal keys in JSX; keys that travel through state (STYLE habit
 * 14: "state and alerts carry keys") are plain strings, so they go through this one cast.
 */
export function useText(): TextFn {
  const { t } = useTranslation();
  return useCallback<TextFn>((key, values) => (t as unknown as TextFn)(key, values), [t]);
}
