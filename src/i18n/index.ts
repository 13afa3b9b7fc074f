import i18next, { type i18n as I18n } from 'i18next';
import { initReactI18next } from 'react-i18next';

type Json = { default: Record<string, unknown> };

/** Namespaces every page may need (layout, login, open pages): bundled with the entry. */
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

const eager = import.meta.glob<Json>(
  [
    './locales/*/common.json',
    './locales/*/errors.json',
    './locales/*/layout.json',
    './locales/*/login.json',
    './locales/*/alerting.json',
    './locales/*/pages.json',
    './locales/*/footer.json',
    './locales/*/templates.json',
  ],
  { eager: true },
);
/** Every namespace, loaded on demand: feature namespaces arrive with the routes that use them. */
const lazy = import.meta.glob<Json>('./locales/*/*.json');

export const SUPPORTED_LANGS = ['ja', 'en'] as const;
export type Lang = (typeof SUPPORTED_LANGS)[number];

function parsePath(p: string): { lng: string; ns: string } | null {
  const m = /\.\/locales\/([^/]+)\/([^/]+)\.json$/.exec(p);
  return m ? { lng: m[1]!, ns: m[2]! } : null;
}

/** The bundled (core) resources. */
export function buildResources(): Record<string, Record<string, Record<string, unknown>>> {
  const resources: Record<string, Record<string, Record<string, unknown>>> = {};
  for (const [path, mod] of Object.entries(eager)) {
    const p = parsePath(path);
    if (p) (resources[p.lng] ??= {})[p.ns] = mod.default;
  }
  return resources;
}

/** Every resource, core and lazy (tests check that both languages have every key). */
export async function loadAllResources(): Promise<Record<string, Record<string, Record<string, unknown>>>> {
  const resources: Record<string, Record<string, Record<string, unknown>>> = {};
  for (const [path, load] of Object.entries(lazy)) {
    const p = parsePath(path);
    if (p) (resources[p.lng] ??= {})[p.ns] = (await load()).default;
  }
  return resources;
}

/** Every namespace name (core and lazy). */
export const ALL_NAMESPACES = [
  ...new Set(
    Object.keys(lazy)
      .map((p) => parsePath(p)?.ns)
      .filter((n): n is string => !!n),
  ),
];

/** Spec §1: start-up languages ja, en, zn; zn maps to Japanese; anything else falls back to Japanese. */
export function normaliseLang(lang: string | null | undefined): Lang {
  const l = (lang ?? '').toLowerCase();
  if (l === 'en' || l.startsWith('en-')) return 'en';
  return 'ja';
}

/** Initialises i18next once: Japanese default, English falling back to Japanese per missing key. */
export function initI18n(lang: string | null | undefined = 'ja', instance: I18n = i18next): I18n {
  if (!instance.isInitialized) {
    void instance.use(initReactI18next).init({
      resources: buildResources(),
      lng: normaliseLang(lang),
      fallbackLng: 'ja',
      supportedLngs: ['ja', 'en', 'cimode'],
      ns: [...CORE_NAMESPACES],
      defaultNS: 'common',
      interpolation: { escapeValue: false },
      returnNull: false,
      initAsync: false,
      partialBundledLanguages: true,
    });
  } else {
    void instance.changeLanguage(normaliseLang(lang));
  }
  if (typeof document !== 'undefined') document.documentElement.lang = normaliseLang(lang);
  return instance;
}

/** Loads namespaces (both languages, for the Japanese fallback) that are not loaded yet. */
export async function loadNamespaces(namespaces: readonly string[], instance: I18n = i18next): Promise<void> {
  const jobs: Promise<void>[] = [];
  for (const ns of new Set(namespaces)) {
    for (const lng of SUPPORTED_LANGS) {
      if (instance.hasResourceBundle(lng, ns)) continue;
      const load = lazy[`./locales/${lng}/${ns}.json`];
      if (!load) continue;
      jobs.push(load().then((m) => void instance.addResourceBundle(lng, ns, m.default, true, false)));
    }
  }
  await Promise.all(jobs);
}

export async function changeLanguage(lang: string): Promise<void> {
  await i18next.changeLanguage(normaliseLang(lang));
  if (typeof document !== 'undefined') document.documentElement.lang = normaliseLang(lang);
}

export { i18next };
