import { describe, expect, it } from 'vitest';
import i18next from 'i18next';
import { initI18n, loadAllResources, normaliseLang } from './index';

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

  it('falls back to Japanese per missing English key', () => {
    const inst = i18next.createInstance();
    initI18n('en', inst);
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

  it("uses the spec's Japanese messages verbatim", () => {
    const inst = i18next.createInstance();
    initI18n('ja', inst);
    expect(inst.t('errors:internal')).toBe('システムエラーが発生しました。');
  });
});
