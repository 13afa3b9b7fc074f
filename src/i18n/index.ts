import i18next, { type i18n as I18n } from 'i18next';
import { initReactI18next } from 'react-i18next';
import { logger } from '../lib/logger';

type Bundle = Record<string, unknown>;
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
/** English core texts, one chunk (core-en.ts), loaded only when English is used. */
const loadEnCore = () => import('./core-en').then((m) => byNamespace(m.default));
/** Feature namespaces, one chunk per language and namespace, loaded with the routes that use them. */
const lazy = import.meta.glob<Json>([
  './locales/*/*.json',
  '!./locales/*/{common,errors,layout,login,alerting,pages,footer,templates}.json',
]);

function parsePath(p: string): { lng: string; ns: string } | null {
  const m = /\.\/locales\/([^/]+)\/([^/]+)\.json$/.exec(p);
  return m ? { lng: m[1]!, ns: m[2]! } : null;
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

/** Every resource, core and feature, of both languages (tests check that both languages have every key). */
export async function loadAllResources(): Promise<Record<string, LangResources>> {
  const resources: Record<string, LangResources> = {};
  for (const lng of SUPPORTED_LANGS) resources[lng] = { ...(await loadCore(lng)) };
  for (const [path, load] of Object.entries(lazy)) {
    const p = parsePath(path);
    if (p) (resources[p.lng] ??= {})[p.ns] = (await load()).default;
  }
  return resources;
}

/** Every namespace name (core and feature). */
export const ALL_NAMESPACES: readonly string[] = [
  ...new Set<string>([
    ...CORE_NAMESPACES,
    ...Object.keys(lazy)
      .map((p) => parsePath(p)?.ns)
      .filter((n): n is string => !!n),
  ]),
];

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

/** Feature namespaces already loaded in any language (a language switch loads them in the new one too). */
function loadedFeatureNamespaces(instance: I18n): string[] {
  const core: readonly string[] = CORE_NAMESPACES;
  const data = (instance.store?.data ?? {}) as Record<string, Record<string, unknown>>;
  return [...new Set(Object.values(data).flatMap((nss) => Object.keys(nss)))].filter(
    (ns) => !core.includes(ns),
  );
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
 * Loads namespaces that are not loaded yet, in `langs`: by default the current language and its fallback
 * (tests pass every language). Waits for a first initialisation in progress, so the router may start loading
 * a page while the start-up language's texts are still on their way.
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
  const jobs: Promise<void>[] = [];
  for (const ns of new Set(namespaces)) {
    for (const lng of use) {
      if (instance.hasResourceBundle(lng, ns)) continue;
      const load = lazy[`./locales/${lng}/${ns}.json`];
      if (!load) continue;
      jobs.push(load().then((m) => void instance.addResourceBundle(lng, ns, m.default, true, false)));
    }
  }
  await Promise.all(jobs);
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
