/**
 * Tests: every text unit in every language. The app never imports this: Japanese feature texts come with the
 * code that shows them (addTexts), English ones by name (loadNamespaces).
 */
import type { i18n as I18n } from 'i18next';
import {
  CORE_NAMESPACES,
  SUPPORTED_LANGS,
  addTexts,
  i18next,
  loadNamespaces,
  type Lang,
  type LangResources,
} from './index';
import EN_CORE, { EN_TEXTS } from './core-en';

type Json = { default: Record<string, unknown> };

const JA_CORE = import.meta.glob<Json>(
  './locales/ja/{common,errors,layout,login,alerting,pages,footer,templates}.json',
  { eager: true },
);
const JA = import.meta.glob<Json>(
  [
    './locales/ja/*.json',
    './locales/ja/*/*.json',
    '!./locales/ja/{common,errors,layout,login,alerting,pages,footer,templates}.json',
  ],
  { eager: true },
);

/** `./locales/ja/tester/envSetting.json` → `tester/envSetting`. */
const unitOf = (path: string) => path.replace(/^\.\/locales\/[^/]+\//, '').replace(/\.json$/, '');

/** Every Japanese feature text unit (namespaces and parts), by unit. */
export const JAPANESE_TEXTS: Readonly<Record<string, Record<string, unknown>>> = Object.fromEntries(
  Object.entries(JA).map(([path, m]) => [unitOf(path), m.default]),
);

/** Every text unit: the core namespaces, and each feature namespace and namespace part. */
export const ALL_TEXT_UNITS: readonly string[] = [...CORE_NAMESPACES, ...Object.keys(JAPANESE_TEXTS)];

/** Every text unit of `langs` in `instance`. */
export async function loadAllTexts(
  instance: I18n = i18next,
  langs: readonly Lang[] = SUPPORTED_LANGS,
): Promise<void> {
  await loadNamespaces(ALL_TEXT_UNITS, instance, langs);
  if (langs.includes('ja')) await addTexts(JAPANESE_TEXTS, instance);
}

/** Every resource, core and feature (parts merged into their namespaces), of both languages. */
export async function loadAllResources(): Promise<Record<string, LangResources>> {
  const resources: Record<string, LangResources> = { ja: {}, en: {} };
  const add = (lng: string, unit: string, texts: Record<string, unknown>) => {
    const [ns, part] = unit.split('/') as [string, string | undefined];
    const byNs = (resources[lng] ??= {});
    byNs[ns] = { ...byNs[ns], ...(part ? { [part]: texts } : texts) };
  };
  for (const [path, m] of Object.entries(JA_CORE)) add('ja', unitOf(path), m.default);
  for (const [path, m] of Object.entries(EN_CORE)) add('en', unitOf(path), m.default);
  for (const [unit, texts] of Object.entries(JAPANESE_TEXTS)) add('ja', unit, texts);
  for (const [path, load] of Object.entries(EN_TEXTS)) add('en', unitOf(path), (await load()).default);
  return resources;
}
