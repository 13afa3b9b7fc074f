import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_RUNTIME_CONFIG, setRuntimeConfig } from '../lib/runtime-config';
import { resolveRoute } from './guard';

const UA =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';
const APP = { userAgentToken: 'ProctorDesktop/', setupUrl: 'https://setup.example.org/install' };

afterEach(() => setRuntimeConfig(DEFAULT_RUNTIME_CONFIG));

describe('the guard (spec §2, §6)', () => {
  it('sends "/" to the first page of the actor, or to /login', () => {
    expect(resolveRoute('/', 2, UA)).toEqual({ kind: 'redirect', to: '/monitoring' });
    expect(resolveRoute('/', null, UA)).toEqual({ kind: 'redirect', to: '/login' });
  });

  it('shows a page the actor may open, an open page to anyone, and tolerates a trailing slash', () => {
    expect(resolveRoute('/examinees/', 3, UA)).toMatchObject({ kind: 'page', key: 'examinees' });
    expect(resolveRoute('/terms', null, UA)).toMatchObject({ kind: 'page', key: 'terms' });
  });

  it('sends a visitor without login to /login, and answers 403 for a page outside the actor’s list', () => {
    expect(resolveRoute('/monitoring', null, UA)).toEqual({ kind: 'redirect', to: '/login' });
    expect(resolveRoute('/monitoring', 3, UA)).toEqual({ kind: 'forbidden' });
  });

  it('answers 404 for an unknown path and a failed validity check, logged in or not', () => {
    expect(resolveRoute('/no/such/page', null, UA)).toEqual({ kind: 'notFound' });
    expect(resolveRoute('/examinees/abc', 3, UA)).toEqual({ kind: 'notFound' });
    expect(resolveRoute('/alerting/Not_Valid', null, UA)).toEqual({ kind: 'notFound' });
  });
});

describe('the desktop proctoring application on every tester page (spec §1)', () => {
  it.each(['/env-setting', '/identification', '/identification-ai', '/examining', '/exam-end'])(
    '%s sends a browser without the application to its setup page',
    (path) => {
      setRuntimeConfig({ desktopApp: APP });
      expect(resolveRoute(path, 1, UA)).toEqual({ kind: 'external', url: APP.setupUrl });
      expect(resolveRoute(path, 1, `${UA} ProctorDesktop/2.1`)).toMatchObject({ kind: 'page' });
    },
  );

  it('leaves other pages and deployments without the application alone', () => {
    setRuntimeConfig({ desktopApp: APP });
    expect(resolveRoute('/monitoring', 2, UA)).toMatchObject({ kind: 'page' });
    setRuntimeConfig({ desktopApp: null });
    expect(resolveRoute('/examining', 1, UA)).toMatchObject({ kind: 'page' });
  });
});
