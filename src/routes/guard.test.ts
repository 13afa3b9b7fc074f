import { afterEach, describe, expect, it } from 'vitest';
import { setupStore } from '../app/store';
import { DEFAULT_RUNTIME_CONFIG, setRuntimeConfig } from '../lib/runtime-config';
import { loginState } from '../../tests/render';
import { requirePage } from './guard';

const UA =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';
const APP = { userAgentToken: 'ProctorDesktop/', setupUrl: 'https://setup.example.org/install' };

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (e) {
    return e;
  }
  return null;
}

afterEach(() => setRuntimeConfig(DEFAULT_RUNTIME_CONFIG));

describe('the desktop proctoring application on every tester page (spec §1)', () => {
  it.each(['envSetting', 'identification', 'identificationAi', 'examining', 'examEnd'] as const)(
    '%s sends a browser without the application to its setup page',
    (page) => {
      setRuntimeConfig({ desktopApp: APP });
      const store = setupStore(loginState(1));
      const r = thrown(() => requirePage(store, page, UA)) as Response;
      expect(r).toBeInstanceOf(Response);
      expect(r.status).toBe(302);
      expect(r.headers.get('Location')).toBe(APP.setupUrl);
      expect(requirePage(store, page, `${UA} ProctorDesktop/2.1`)).toBeNull();
    },
  );

  it('leaves other pages and deployments without the application alone', () => {
    const checker = setupStore(loginState(2));
    setRuntimeConfig({ desktopApp: APP });
    expect(requirePage(checker, 'monitoring', UA)).toBeNull();
    setRuntimeConfig({ desktopApp: null });
    expect(requirePage(setupStore(loginState(1)), 'examining', UA)).toBeNull();
  });
});
