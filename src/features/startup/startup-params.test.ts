import { configureStore } from '@reduxjs/toolkit';
import {
  STARTUP_STORAGE_KEY,
  convertQueryValue,
  parseStartupQuery,
  readStartupParams,
  saveStartupParams,
  restrictStartupLinks,
  scrubStartupUrl,
} from './startup-params';
import { defaultStartupParams } from './startup-fields';
import startup, { selectIsJtStartup, startupParamsLoaded } from './startup-slice';

const at = (search: string, path = '/') => ({ search, href: `https://exam.test${path}${search}` });

describe('convertQueryValue (spec §3)', () => {
  it.each([
    ['12', 12],
    ['-3', -3],
    ['1.5', 1.5],
    ['""', ''],
    ["''", ''],
    ['abc', 'abc'],
    ['12a', '12a'],
    ['', ''],
  ])('%s → %j', (v, out) => {
    expect(convertQueryValue(v)).toBe(out);
  });
});

describe('parseStartupQuery', () => {
  it('maps snake_case, camelCase and alias keys, converts and types values, and ignores unknown keys', () => {
    const q =
      '?actor=1&is_mc_startup=0&maxRectime=3600&ai_namematch=80&exam_name=%E8%A9%A6%E9%A8%93%20A' +
      "&memo=%22%22&password=''&login_id=00123&group_id=7&target=https%3A%2F%2Fauth.example.com&unknown_key=5";
    expect(parseStartupQuery(q)).toEqual({
      actor: 1,
      isMcStartup: 0,
      maxRectime: 3600,
      aiNameMatch: 80,
      examName: '試験 A',
      memo: '',
      password: '',
      loginId: '00123',
      groupId: 7,
      target: 'https://auth.example.com',
    });
  });

  it('keeps numeric-looking text in text fields as written', () => {
    expect(parseStartupQuery('?login_id=12345&eai=007&exam_datetime=20240101')).toEqual({
      loginId: '12345',
      eai: '007',
      examDatetime: '20240101',
    });
  });

  it('falls back to the default for a number field with non-numeric or empty text', () => {
    expect(parseStartupQuery('?actor=abc&term_template_id=&is_ai_auth=""')).toEqual({
      actor: null,
      termTemplateId: -1,
      isAiAuth: 1,
    });
  });

  it('never takes rawStartupUrl from the query', () => {
    expect(parseStartupQuery('?raw_startup_url=https%3A%2F%2Fevil.test')).toEqual({});
  });
});

describe('readStartupParams', () => {
  it('fills defaults (lang ja, AI flags 1, template ids -1) and records the start-up URL', () => {
    const loc = at('?actor=2&target=auth.example.com');
    const p = readStartupParams(loc, sessionStorage);
    expect(p).toEqual({
      ...defaultStartupParams(),
      actor: 2,
      target: 'auth.example.com',
      rawStartupUrl: loc.href,
    });
    expect(p.lang).toBe('ja');
    expect(p.isAiAuth).toBe(1);
    expect(p.isAiFaildManual).toBe(1);
    expect(p.termTemplateId).toBe(-1);
    expect(p.inquiryTemplate).toBe(-1);
  });

  it('saves the parameters to session storage under "startup", without a JT start-up password', () => {
    const p = readStartupParams(at('?actor=1&login_id=u1&password=pw'), sessionStorage);
    expect(p.password).toBe('pw');
    const { password: _pw, rawStartupUrl: _raw, ...rest } = p;
    const stored = JSON.parse(sessionStorage.getItem(STARTUP_STORAGE_KEY) ?? 'null') as Record<
      string,
      unknown
    >;
    expect(stored).toEqual({ ...rest, rawStartupUrl: 'https://exam.test/?actor=1&login_id=u1' });
    expect(JSON.stringify(stored)).not.toContain('pw');
  });

  it('restores them after a refresh without a query', () => {
    const first = readStartupParams(at('?actor=1&is_mc_startup=0&lang=en'), sessionStorage);
    const again = readStartupParams(at('', '/env-setting'), sessionStorage);
    expect(again).toEqual(first);
    expect(again.rawStartupUrl).toBe('https://exam.test/?actor=1&is_mc_startup=0&lang=en');
  });

  it('lets query fields win over stored ones when the query is not a new start-up', () => {
    const first = readStartupParams(at('?actor=1&lang=ja&exam_name=A'), sessionStorage);
    const again = readStartupParams(at('?lang=en', '/login'), sessionStorage);
    expect(again).toEqual({ ...first, lang: 'en' });
  });

  it('does not inherit stored fields into a new start-up (a query naming actor)', () => {
    readStartupParams(at('?actor=1&login_id=jt-user&password=secret'), sessionStorage);
    const next = readStartupParams(at('?actor=1&exam_name=B'), sessionStorage);
    expect(next.loginId).toBe('');
    expect(next.password).toBe('');
    expect(next.examName).toBe('B');
  });

  it('ignores a malformed stored value', () => {
    sessionStorage.setItem(STARTUP_STORAGE_KEY, '{not json');
    const spy = vi.spyOn(console, 'error').mockImplementation(() => {});
    expect(readStartupParams(at(''), sessionStorage)).toEqual(defaultStartupParams());
    spy.mockRestore();
  });

  it('drops stored values of the wrong type', () => {
    saveStartupParams({ ...defaultStartupParams(), actor: 3 }, sessionStorage);
    const raw = JSON.parse(sessionStorage.getItem(STARTUP_STORAGE_KEY) ?? '{}') as Record<string, unknown>;
    sessionStorage.setItem(STARTUP_STORAGE_KEY, JSON.stringify({ ...raw, actor: 'x', loginId: 5, bogus: 1 }));
    const p = readStartupParams(at(''), sessionStorage);
    expect(p.actor).toBeNull();
    expect(p.loginId).toBe('5');
    expect(p).not.toHaveProperty('bogus');
  });

  it('logs a missing query as an error but returns the defaults', () => {
    const spy = vi.spyOn(console, 'error').mockImplementation(() => {});
    expect(readStartupParams(at(''), sessionStorage)).toEqual(defaultStartupParams());
    expect(spy).toHaveBeenCalledWith(expect.stringContaining('start-up query is missing'));
    spy.mockRestore();
  });
});

describe('a JT start-up password in the address (scrubStartupUrl)', () => {
  it('leaves the address bar and the history entry at once, and is still read once for the login', () => {
    const replaceState = vi.fn();
    const opened = scrubStartupUrl(at('?actor=1&login_id=tester09&password=S3cret%21&lang=en'), {
      replaceState,
      state: { idx: 0 },
    });
    expect(replaceState).toHaveBeenCalledWith(
      { idx: 0 },
      '',
      'https://exam.test/?actor=1&login_id=tester09&lang=en',
    );
    expect(opened.href).not.toContain('S3cret');
    const p = readStartupParams(opened, sessionStorage);
    expect(p.password).toBe('S3cret!');
    expect(p.rawStartupUrl).toBe('https://exam.test/?actor=1&login_id=tester09&lang=en');
    expect(sessionStorage.getItem(STARTUP_STORAGE_KEY)).not.toContain('S3cret');
  });

  it('leaves an address without a password alone', () => {
    const replaceState = vi.fn();
    const opened = scrubStartupUrl(at('?actor=2&lang=en'), { replaceState, state: null });
    expect(replaceState).not.toHaveBeenCalled();
    expect(opened).toEqual({ search: '?actor=2&lang=en', href: 'https://exam.test/?actor=2&lang=en' });
  });

  it('never restores a password an older version stored', () => {
    sessionStorage.setItem(STARTUP_STORAGE_KEY, JSON.stringify({ actor: 1, loginId: 'u', password: 'old' }));
    expect(readStartupParams(at('', '/env-setting'), sessionStorage).password).toBe('');
  });
});

describe('a start-up URL planting a phishing link or a fake server badge (restrictStartupLinks)', () => {
  const params = (passwordUrl: string, target: string) => ({
    ...defaultStartupParams(),
    passwordUrl,
    target,
  });

  it('drops a password_url and a target outside the allowed origins', () => {
    const p = restrictStartupLinks(
      params('https://evil.example/phish', 'https://login.bank.example/'),
      ['https://id.example.org'],
      'https://exam.example.org',
    );
    expect(p.passwordUrl).toBe('');
    expect(p.target).toBe('');
  });

  it('keeps links to the SPA’s own origin and to the configured ones (a bare host name for the badge)', () => {
    const p = restrictStartupLinks(
      params('https://id.example.org/reset?x=1', 'exam.example.org'),
      ['https://id.example.org'],
      'https://exam.example.org',
    );
    expect(p.passwordUrl).toBe('https://id.example.org/reset?x=1');
    expect(p.target).toBe('exam.example.org');
  });

  it('drops a javascript: or malformed link', () => {
    const p = restrictStartupLinks(
      params('javascript:alert(1)', 'http://[bad'),
      [],
      'https://exam.example.org',
    );
    expect(p.passwordUrl).toBe('');
    expect(p.target).toBe('');
  });
});

describe('JT start-up detection (selectIsJtStartup)', () => {
  const storeWith = (search: string) => {
    const store = configureStore({ reducer: { startup } });
    store.dispatch(startupParamsLoaded(readStartupParams(at(search), sessionStorage)));
    return store;
  };

  it('is a JT start-up when loginId is non-empty', () => {
    expect(selectIsJtStartup(storeWith('?actor=1&login_id=jt-001&password=pw').getState())).toBe(true);
  });

  it('is not when loginId is missing or an empty-quote marker', () => {
    expect(selectIsJtStartup(storeWith('?actor=1').getState())).toBe(false);
    expect(selectIsJtStartup(storeWith('?actor=1&login_id=%22%22').getState())).toBe(false);
  });
});
