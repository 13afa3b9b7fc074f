import i18next, { type i18n as I18n } from 'i18next';
import { initReactI18next } from 'react-i18next';

/** Every locales/{lang}/{ns}.json, bundled (texts are small; media code stays lazy). */
const files = import.meta.glob<{ default: Record<string, unknown> }>('./locales/*/*.json', { eager: true });

export const SUPPORTED_LANGS = ['ja', 'en'] as const;
export type Lang = (typeof SUPPORTED_LANGS)[number];

export function buildResources(): Record<string, Record<string, Record<string, unknown>>> {
  const resources: Record<string, Record<string, Record<string, unknown>>> = {};
  for (const [path, mod] of Object.entries(files)) {
    const m = /\.\/locales\/([^/]+)\/([^/]+)\.json$/.exec(path);
    if (!m) continue;
    const [, lng, ns] = m as unknown as [string, string, string];
    (resources[lng] ??= {})[ns] = mod.default;
  }
  return resources;
}

export const NAMESPACES = Object.keys(buildResources().ja ?? {});

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
      ns: NAMESPACES,
      defaultNS: 'common',
      interpolation: { escapeValue: false },
      returnNull: false,
      initAsync: false,
    });
  } else {
    void instance.changeLanguage(normaliseLang(lang));
  }
  if (typeof document !== 'undefined') document.documentElement.lang = normaliseLang(lang);
  return instance;
}

export async function changeLanguage(lang: string): Promise<void> {
  await i18next.changeLanguage(normaliseLang(lang));
  if (typeof document !== 'undefined') document.documentElement.lang = normaliseLang(lang);
}

export { i18next };
