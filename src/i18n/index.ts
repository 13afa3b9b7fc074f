import i18next, { type i18n as I18n } from 'i18next';
import { initReactI18next } from 'react-i18next';
import { logger } from '../lib/logger';

type Bundle = Record<string, unknown>;
/**
 * Japanese texts by text unit (a namespace, or a part of one: `tester/envSetting`), imported by the code that
 * shows them so they are in its chunk; {@link addTexts} adds them (and loads the English ones on an English page).
 */
export type JapaneseTexts = Readonly<Record<string, Bundle>>;
/** Namespace → texts, for one language. */
export type LangResources = Record<string, Bundle>;
type Json = { default: Bundle };

/** Namespaces every page may need (layout, login, open pages). Kept in step with the globs below. */
export const CORE_NAMESPACES = [
  'common',
  'errors',
  'layout',
  'login',
  'alerting',
  'pages',
  'footer',
  'templates',
] as const;

export const SUPPORTED_LANGS = ['ja', 'en'] as const;
export type Lang = (typeof SUPPORTED_LANGS)[number];

/** The fallback language: every English key falls back to it, so it is always loaded. */
const FALLBACK_LANG: Lang = 'ja';

/**
 * Japanese core texts are in the entry chunk: Japanese is the default language and the fallback of English,
 * so every start-up needs them before the first render. (Vite needs literal globs: the list is CORE_NAMESPACES.)
 */
const jaCore = import.meta.glob<Json>(
  './locales/ja/{common,errors,layout,login,alerting,pages,footer,templates}.json',
  {
    eager: true,
  },
);
/**
 * English texts (core-en.ts), loaded only when English is used: the core namespaces, and the index of the
 * English feature texts.
 */
const loadEnTexts = () => import('./core-en');
const loadEnCore = () => loadEnTexts().then((m) => byNamespace(m.default));

type TextFiles = Record<string, () => Promise<Json>>;

/** The English feature text files (their index comes with the English core texts). */
async function englishFiles(): Promise<TextFiles> {
  return (await loadEnTexts()).EN_TEXTS;
}

/** A text file's language, namespace and, for a part, the key it holds (`tester/envSetting` → `envSetting`). */
function parsePath(p: string): { lng: string; ns: string; part?: string; unit: string } | null {
  const m = /\.\/locales\/([^/]+)\/([^/]+?)(?:\/([^/]+))?\.json$/.exec(p);
  if (!m) return null;
  const [, lng, ns, part] = m as unknown as [string, string, string, string | undefined];
  return part ? { lng, ns, part, unit: `${ns}/${part}` } : { lng, ns, unit: ns };
}

/** A unit's texts as they sit in its namespace: a part's under its key. */
function asBundle(texts: Bundle, part: string | undefined): Bundle {
  return part ? { [part]: texts } : texts;
}

/** Path-keyed modules of one language as namespace → texts. */
function byNamespace(mods: Record<string, Json>): LangResources {
  const out: LangResources = {};
  for (const [path, mod] of Object.entries(mods)) {
    const p = parsePath(path);
    if (p) out[p.ns] = mod.default;
  }
  return out;
}

const JA_CORE = byNamespace(jaCore);

/** The core namespaces of one language. */
function loadCore(lng: Lang): Promise<LangResources> {
  return lng === 'ja' ? Promise.resolve(JA_CORE) : loadEnCore();
}

/** Spec §1: start-up languages ja, en, zn; zn maps to Japanese; anything else falls back to Japanese. */
export function normaliseLang(lang: string | null | undefined): Lang {
  const l = (lang ?? '').toLowerCase();
  if (l === 'en' || l.startsWith('en-')) return 'en';
  return 'ja';
}

/** The languages a page in `lng` needs: the language itself and the fallback (Japanese), nothing else. */
export function languagesFor(lng: string): Lang[] {
  const l = normaliseLang(lng);
  return l === FALLBACK_LANG ? [l] : [l, FALLBACK_LANG];
}

/** Adds the core namespaces of `langs` that `instance` lacks. */
async function addCore(instance: I18n, langs: readonly Lang[]): Promise<void> {
  await Promise.all(
    langs
      .filter((lng) => !instance.hasResourceBundle(lng, 'common'))
      .map(async (lng) => {
        const core = await loadCore(lng);
        for (const [ns, texts] of Object.entries(core))
          instance.addResourceBundle(lng, ns, texts, true, false);
      }),
  );
}

/** Feature text units each instance holds, as `lng|unit` (a namespace's bundle may hold only some parts). */
const loadedUnits = new WeakMap<I18n, Set<string>>();

function unitsOf(instance: I18n): Set<string> {
  let units = loadedUnits.get(instance);
  if (!units) loadedUnits.set(instance, (units = new Set()));
  return units;
}

/** Feature text units already loaded in any language (a language switch loads them in the new one too). */
function loadedFeatureNamespaces(instance: I18n): string[] {
  return [...new Set([...unitsOf(instance)].map((k) => k.slice(k.indexOf('|') + 1)))];
}

function setDocumentLang(lng: Lang): void {
  if (typeof document !== 'undefined') document.documentElement.lang = lng;
}

/** First initialisations in progress: loadNamespaces waits for them. */
const initialising = new WeakMap<I18n, Promise<I18n>>();

/**
 * Initialises i18next once: Japanese default, English falling back to Japanese per missing key. Only the
 * texts of the start-up language (and Japanese, its fallback) are loaded; the promise resolves when they are
 * in place, so a render after it shows text, never keys. Texts of another language that fail to load (a
 * network error) leave the page in Japanese rather than blank. Called again on an initialised instance it
 * switches language; while the first call is still loading, further calls get its promise.
 */
export function initI18n(lang: string | null | undefined = 'ja', instance: I18n = i18next): Promise<I18n> {
  if (instance.isInitialized) return switchLanguage(instance, normaliseLang(lang)).then(() => instance);
  let pending = initialising.get(instance);
  if (!pending) {
    pending = firstInit(instance, normaliseLang(lang));
    initialising.set(instance, pending);
  }
  return pending;
}

async function firstInit(instance: I18n, wanted: Lang): Promise<I18n> {
  let lng = wanted;
  let langs = languagesFor(lng);
  let cores: LangResources[];
  try {
    cores = await Promise.all(langs.map(loadCore));
  } catch (e) {
    logger.error(
      'i18n',
      `texts for '${lng}' could not be loaded; showing Japanese`,
      e instanceof Error ? e.message : e,
    );
    lng = FALLBACK_LANG;
    langs = [lng];
    cores = [JA_CORE];
  }
  const resources: Record<string, LangResources> = {};
  langs.forEach((l, i) => (resources[l] = { ...cores[i] }));
  await instance.use(initReactI18next).init({
    resources,
    lng,
    fallbackLng: FALLBACK_LANG,
    supportedLngs: ['ja', 'en', 'cimode'],
    ns: [...CORE_NAMESPACES],
    defaultNS: 'common',
    interpolation: { escapeValue: false },
    returnNull: false,
    initAsync: false,
    partialBundledLanguages: true,
  });
  setDocumentLang(lng);
  return instance;
}

/**
 * Loads text units (namespaces, or parts of one: `tester/envSetting`) that are not loaded yet, in `langs`: by
 * default the current language and its fallback. Japanese feature texts are not loaded by name: they come
 * with the code that shows them ({@link addTexts}), so for Japanese this adds only core namespaces. Waits for a
 * first initialisation in progress, so the router may start loading a page while the start-up language's
 * texts are still on their way.
 */
export async function loadNamespaces(
  namespaces: readonly string[],
  instance: I18n = i18next,
  langs?: readonly Lang[],
): Promise<void> {
  await initialising.get(instance);
  const use = langs ?? languagesFor(instance.language ?? FALLBACK_LANG);
  const core: readonly string[] = CORE_NAMESPACES;
  if (namespaces.some((ns) => core.includes(ns))) await addCore(instance, use);
  const units = unitsOf(instance);
  const jobs: Promise<void>[] = [];
  for (const lng of use) {
    const wanted = [...new Set(namespaces)].filter((unit) => !units.has(`${lng}|${unit}`));
    if (wanted.length === 0) continue;
    if (lng === FALLBACK_LANG) continue;
    const files = await englishFiles();
    for (const unit of wanted) {
      const load = files[`./locales/${lng}/${unit}.json`];
      if (!load) continue;
      const p = parsePath(`./locales/${lng}/${unit}.json`)!;
      jobs.push(
        load().then((m) => {
          instance.addResourceBundle(lng, p.ns, asBundle(m.default, p.part), true, false);
          units.add(`${lng}|${unit}`);
        }),
      );
    }
  }
  await Promise.all(jobs);
}

/**
 * Texts a page or a part of one carries in its own chunk, in Japanese (the fallback of every language, so
 * always needed), by text unit (`{ 'tester/envSetting': envSettingJa }`): added at once; the same units of the
 * page's other language (English) are loaded. Resolves when all are in place, so a render after it shows text.
 */
export async function addTexts(japanese: JapaneseTexts, instance: I18n = i18next): Promise<void> {
  await initialising.get(instance);
  const units = unitsOf(instance);
  for (const [unit, texts] of Object.entries(japanese)) {
    if (units.has(`ja|${unit}`)) continue;
    const p = parsePath(`./locales/ja/${unit}.json`)!;
    instance.addResourceBundle('ja', p.ns, asBundle(texts, p.part), true, false);
    units.add(`ja|${unit}`);
  }
  const others = languagesFor(instance.language ?? FALLBACK_LANG).filter((l) => l !== FALLBACK_LANG);
  if (others.length > 0) await loadNamespaces(Object.keys(japanese), instance, others);
}

/** Whether the texts of `units` are in, in the current language and its fallback. */
export function hasTexts(units: readonly string[], instance: I18n = i18next): boolean {
  const loaded = unitsOf(instance);
  return languagesFor(instance.language ?? FALLBACK_LANG).every((lng) =>
    units.every((unit) => loaded.has(`${lng}|${unit}`)),
  );
}

/**
 * Switches language without a flash of keys: the new language's core texts and every feature namespace
 * already in use are loaded first, then i18next changes language (and components re-render once).
 */
async function switchLanguage(instance: I18n, lng: Lang): Promise<void> {
  const langs = languagesFor(lng);
  await addCore(instance, langs);
  await loadNamespaces(loadedFeatureNamespaces(instance), instance, langs);
  if (instance.language !== lng) await instance.changeLanguage(lng);
  setDocumentLang(lng);
}

/** The language switch: loads what the new language needs, then switches (see switchLanguage). */
export async function changeLanguage(lang: string, instance: I18n = i18next): Promise<void> {
  await switchLanguage(instance, normaliseLang(lang));
}

export { i18next };
