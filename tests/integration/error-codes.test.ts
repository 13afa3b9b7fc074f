import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '@contract/constants/common';
import jaCore from '../../src/i18n/locales/ja/errors.json';
import enCore from '../../src/i18n/locales/en/errors.json';
import jaCodes from '../../src/i18n/locales/ja/errors/code.json';
import enCodes from '../../src/i18n/locales/en/errors/code.json';
import { CLIENT_ERROR_CODES, isKnownErrorCode, messageKeyFor } from '../../src/api/api-error';

// The server's codes are a part of the namespace (errors/code.json, loaded with the API client); the client's
// own (network, timeout, parse) are core texts.
const ja = { ...jaCore, code: { ...jaCore.code, ...jaCodes } };
const en = { ...enCore, code: { ...enCore.code, ...enCodes } };

describe('error codes (README "Error codes")', () => {
  it.each([...ERROR_CODES, ...CLIENT_ERROR_CODES])('%s has its own Japanese and English text', (code) => {
    expect(isKnownErrorCode(code)).toBe(true);
    // The session-end codes keep the keys the session-end flow uses (app-listeners.ts, tester-listeners.ts).
    const key = messageKeyFor(400, code);
    expect(key === `errors:code.${code}` || /^errors:session(Superseded|Ended)$/.test(key)).toBe(true);
    const lookup = (bundle: Record<string, unknown>) =>
      key
        .slice('errors:'.length)
        .split('.')
        .reduce<unknown>((o, k) => (o as Record<string, unknown> | undefined)?.[k], bundle);
    expect(lookup(ja)).toMatch(/[ぁ-んァ-ヶ一-龯]/);
    expect(lookup(en)).toMatch(/^[\x20-\x7e]+$/);
  });

  it('leaves an unknown or missing code to the status text', () => {
    expect(isKnownErrorCode('something_new')).toBe(false);
    expect(messageKeyFor(403, 'something_new')).toBe('errors:forbidden');
    expect(messageKeyFor(500, null)).toBe('errors:internal');
  });
});
