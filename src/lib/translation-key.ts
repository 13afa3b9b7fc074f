import type { CustomTypeOptions } from 'i18next';

type Resources = CustomTypeOptions['resources'];

/** The plural suffixes i18next adds to a key in the JSON (`count` picks one); the key itself has none. */
type PluralSuffix = 'zero' | 'one' | 'two' | 'few' | 'many' | 'other';
type WithoutPlural<K extends string> = K extends `${infer Base}_${PluralSuffix}` ? Base | K : K;

/** Every text path of one namespace's JSON, dot-separated (`code.login_failed`). */
type Leaves<T, Prefix extends string = ''> = {
  [K in keyof T & string]: T[K] extends string
    ? WithoutPlural<`${Prefix}${K}`>
    : Leaves<T[K], `${Prefix}${K}.`>;
}[keyof T & string];

/**
 * A text key with its namespace (`errors:code.login_failed`): what state, alerts and failures carry (STYLE
 * habit 14) instead of texts. Derived from the Japanese JSON (the source language), so a key that does not
 * exist, or a typo, fails the type check where the key is put into state, not on the screen.
 */
export type TranslationKey = {
  [Ns in keyof Resources & string]: `${Ns}:${Leaves<Resources[Ns]>}`;
}[keyof Resources & string];

/**
 * A key put together at run time from data the type checker cannot list (a server's result code, a start-up
 * parameter's name): the one place such a key becomes a TranslationKey unchecked. i18next shows the key
 * itself (or the call's defaultValue) when it has no text; the i18n tests hold both languages to the same keys.
 */
export function runtimeKey(key: string): TranslationKey {
  return key as TranslationKey;
}
