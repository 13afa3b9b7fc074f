import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../contract/common';
import ja from '../../src/i18n/locales/ja/errors.json';
import en from '../../src/i18n/locales/en/errors.json';
import { CLIENT_ERROR_CODES, isKnownErrorCode, messageKeyFor } from '../../src/api/api-error';

describe('error codes (README "Error codes")', () => {
  it.each([...ERROR_CODES, ...CLIENT_ERROR_CODES])('%s has its own Japanese and English text', (code) => {
    expect(isKnownErrorCode(code)).toBe(true);
    expect(messageKeyFor(400, code)).toBe(`errors:code.${code}`);
    const jaText = (ja.code as Record<string, string>)[code];
    const enText = (en.code as Record<string, string>)[code];
    expect(jaText).toMatch(/[ぁ-んァ-ヶ一-龯]/);
    expect(enText).toMatch(/^[\x20-\x7e]+$/);
  });

  it('leaves an unknown or missing code to the status text', () => {
    expect(isKnownErrorCode('something_new')).toBe(false);
    expect(messageKeyFor(403, 'something_new')).toBe('errors:forbidden');
    expect(messageKeyFor(500, null)).toBe('errors:internal');
  });
});
