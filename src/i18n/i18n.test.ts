import { describe, expect, it, vi } from 'vitest';
import i18next from 'i18next';
import {
  CORE_NAMESPACES,
  addTexts,
  changeLanguage,
  hasTexts,
  initI18n,
  languagesFor,
  normaliseLang,
} from './index';
import { loadAllResources } from './all-texts';
import testerJa from './locales/ja/tester.json';
import envSettingJa from './locales/ja/tester/envSetting.json';
import recordingJa from './locales/ja/recording.json';
import validationJa from './locales/ja/validation.json';

function flatKeys(o: Record<string, unknown>, prefix = ''): string[] {
  return Object.entries(o).flatMap(([k, v]) =>
    v && typeof v === 'object' ? flatKeys(v as Record<string, unknown>, `${prefix}${k}.`) : [`${prefix}${k}`],
  );
}

describe('languages (spec §1)', () => {
  it('maps zn to Japanese, en to English, anything else to Japanese', () => {
    expect(normaliseLang('zn')).toBe('ja');
    expect(normaliseLang('en')).toBe('en');
    expect(normaliseLang('EN-us')).toBe('en');
    expect(normaliseLang('fr')).toBe('ja');
    expect(normaliseLang(undefined)).toBe('ja');
  });

  it('falls back to Japanese per missing English key', async () => {
    const inst = i18next.createInstance();
    await initI18n('en', inst);
    // A namespace of its own: the shared namespace objects must not change for the other tests.
    inst.addResourceBundle('ja', 'scratch', { onlyInJapanese: '日本語だけ' });
    inst.addResourceBundle('en', 'scratch', {});
    expect(inst.t('scratch:onlyInJapanese' as never)).toBe('日本語だけ');
    expect(inst.t('errors:internal')).toBe('A system error has occurred.');
  });

  it('has every Japanese key in English too, and the reverse (both languages for every string)', async () => {
    const r = await loadAllResources();
    const ja = r.ja ?? {};
    const en = r.en ?? {};
    expect(Object.keys(en).sort()).toEqual(Object.keys(ja).sort());
    for (const ns of Object.keys(ja)) {
      expect(flatKeys(en[ns] ?? {}).sort(), `namespace ${ns}`).toEqual(flatKeys(ja[ns] ?? {}).sort());
    }
  });

  it("uses the spec's Japanese messages verbatim", async () => {
    const inst = i18next.createInstance();
    await initI18n('ja', inst);
    await addTexts({ validation: validationJa, recording: recordingJa }, inst);
    const t = (k: string, o?: Record<string, string>) => String(inst.t(k as never, o as never));
    expect(t('errors:internal')).toBe('システムエラーが発生しました。');
    // spec §2 error page, §5 form rules, §8 recording.
    expect(t('alerting:title')).toBe('エラー');
    expect(t('alerting:heading')).toBe('ページ表示エラー');
    expect(t('validation:date', { field: '試験日' })).toBe('入力された試験日は設定できません。');
    expect(t('validation:ipv4')).toMatch(/はIPv4の形式でなければなりません。$/);
    expect(t('validation:url', { field: 'URL' })).toBe(
      'URLはhttps://example.comの形式でなければなりません。',
    );
    expect(t('validation:examUrl')).toBe('起動URLはhttps://example.comの形式でなければなりません。');
    expect(t('validation:ipOrDomain')).toBe('IPアドレスとドメインのいずれかを入力してください。');
    expect(t('validation:selectOne')).toBe('一つ以上の要素を選択してください。');
    expect(t('validation:groupOrCode')).toBe('試験団体と試験団体コードのいずれかを入力してください。');
    expect(t('validation:dateCombination')).toBe('試験日時の指定で、指定できない組み合わせがあります。');
    expect(t('recording:startFailed')).toBe('録画開始に失敗しました。');
  });
});

/** The namespaces `inst` holds for `lng`. */
function bundles(inst: typeof i18next, lng: string): string[] {
  const data = inst.store.data as Record<string, Record<string, unknown>>;
  return Object.keys(data[lng] ?? {}).sort();
}

describe('only the languages a page needs are loaded', () => {
  it('a Japanese page loads the Japanese core namespaces and no English', async () => {
    const inst = i18next.createInstance();
    await initI18n('ja', inst);
    expect(bundles(inst, 'ja')).toEqual([...CORE_NAMESPACES].sort());
    expect(bundles(inst, 'en')).toEqual([]);
    expect(document.documentElement.lang).toBe('ja');
  });

  it('an English page loads English and Japanese, its fallback', async () => {
    expect(languagesFor('en')).toEqual(['en', 'ja']);
    expect(languagesFor('zn')).toEqual(['ja']);
    const inst = i18next.createInstance();
    await initI18n('en', inst);
    expect(bundles(inst, 'en')).toEqual([...CORE_NAMESPACES].sort());
    expect(bundles(inst, 'ja')).toEqual([...CORE_NAMESPACES].sort());
    expect(inst.t('common:ok')).not.toBe('ok');
    expect(document.documentElement.lang).toBe('en');
  });

  it("feature texts come with their code in Japanese, and load in the page's other language only", async () => {
    const ja = i18next.createInstance();
    await initI18n('ja', ja);
    await addTexts({ tester: testerJa }, ja);
    expect(ja.hasResourceBundle('ja', 'tester')).toBe(true);
    expect(ja.hasResourceBundle('en', 'tester')).toBe(false);
    const en = i18next.createInstance();
    await initI18n('en', en);
    await addTexts({ tester: testerJa }, en);
    expect(en.t('tester:chat.send')).toBe('Send');
    expect(hasTexts(['tester'], en)).toBe(true);
  });

  it('a namespace part adds its texts under its key, next to the namespace, with the same keys', async () => {
    const inst = i18next.createInstance();
    await initI18n('en', inst);
    expect(hasTexts(['tester/envSetting'], inst)).toBe(false);
    await addTexts({ 'tester/envSetting': envSettingJa }, inst);
    expect(inst.t('tester:envSetting.title')).toBe('Exam environment setting');
    expect(inst.t('tester:envSetting.title', { lng: 'ja' })).toBe(envSettingJa.title);
    // The namespace's own file does not replace the part (nor the part the file).
    await addTexts({ tester: testerJa }, inst);
    expect(inst.t('tester:envSetting.title')).toBe('Exam environment setting');
    expect(inst.t('tester:chat.send')).toBe('Send');
    expect(hasTexts(['tester', 'tester/envSetting'], inst)).toBe(true);
  });

  it('a language switch loads the new language (core and features in use) before switching: no keys show', async () => {
    const inst = i18next.createInstance();
    await initI18n('ja', inst);
    await addTexts({ tester: testerJa, 'tester/envSetting': envSettingJa }, inst);
    const seen: { lng: string; ready: boolean; text: string }[] = [];
    inst.on('languageChanged', (lng) => {
      seen.push({
        lng,
        ready:
          CORE_NAMESPACES.every((ns) => inst.hasResourceBundle(lng, ns)) &&
          hasTexts(['tester', 'tester/envSetting'], inst),
        text: inst.t('errors:internal'),
      });
    });
    const switching = changeLanguage('en', inst);
    // Nothing changes until the English texts are in place.
    expect(inst.language).toBe('ja');
    await switching;
    expect(inst.language).toBe('en');
    expect(seen).toEqual([{ lng: 'en', ready: true, text: 'A system error has occurred.' }]);
    expect(inst.t('tester:envSetting.title')).toBe('Exam environment setting');
    expect(document.documentElement.lang).toBe('en');
    // And back: Japanese is already there.
    await changeLanguage('ja', inst);
    expect(inst.t('errors:internal')).toBe('システムエラーが発生しました。');
  });
});

describe('start-up order and failures', () => {
  it('feature texts wait for a first initialisation in progress', async () => {
    const inst = i18next.createInstance();
    const ready = initI18n('en', inst);
    // The router may register a page's features before the start-up language has arrived.
    await addTexts({ tester: testerJa }, inst);
    expect(inst.hasResourceBundle('en', 'tester')).toBe(true);
    expect(inst.hasResourceBundle('ja', 'tester')).toBe(true);
    expect(await ready).toBe(inst);
    expect(inst.language).toBe('en');
  });

  it('English texts that cannot be loaded leave the page in Japanese, with an error logged', async () => {
    const consoleError = vi.spyOn(console, 'error').mockImplementation(() => {});
    vi.resetModules();
    vi.doMock('./core-en', () => {
      throw new Error('Failed to fetch dynamically imported module');
    });
    try {
      const fresh = await import('./index');
      const inst = i18next.createInstance();
      await fresh.initI18n('en', inst);
      expect(inst.language).toBe('ja');
      expect(inst.t('errors:internal')).toBe('システムエラーが発生しました。');
      expect(document.documentElement.lang).toBe('ja');
      expect(consoleError).toHaveBeenCalledWith(
        expect.stringContaining("texts for 'en' could not be loaded"),
      );
    } finally {
      vi.doUnmock('./core-en');
      vi.resetModules();
      consoleError.mockRestore();
    }
  });
});
