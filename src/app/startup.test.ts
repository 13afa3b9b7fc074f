import { setupStore } from './store';
import { applyStartupOutcome, runStartupChecks, type StartupEnv, type StartupOutcome } from './startup';
import { DEFAULT_RUNTIME_CONFIG, type RuntimeConfig } from '../lib/runtime-config';
import { defaultStartupParams, type StartupParams } from '../features/startup/startup-fields';
import { startupParamsLoaded } from '../features/startup/startup-slice';
import type { LoginInfo } from '../features/session/session-slice';
// Tests may use the shared MSW server: the layer rule that keeps tests/ out of src/ is meant for app code.
import { server, ok, fail } from '../../tests/msw/server';

const WIN_CHROME =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';
const WIN_FIREFOX = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:120.0) Gecko/20100101 Firefox/120.0';
const WIN_7 =
  'Mozilla/5.0 (Windows NT 6.1; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';
const LINUX_CHROME =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';
const MAC_SAFARI_OLD =
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/14.0.2 Safari/605.1.15';
const ANDROID_PHONE =
  'Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36';

const LOGIN_RESULT = {
  access_token: 'tok',
  exam_user_name: 'Examinee',
  login_id: 'jt-001',
  actor: 1,
  kicked: null,
  group_id: 1,
  group: 'G',
};

interface FakeEnv extends StartupEnv {
  calls: string[];
}

function fakeEnv(
  over: Partial<Omit<StartupEnv, 'location'>> & { path?: string; search?: string } = {},
): FakeEnv {
  const calls: string[] = [];
  const { path = '/', search = '', ...rest } = over;
  return {
    calls,
    location: { pathname: path, search },
    userAgent: rest.userAgent ?? WIN_CHROME,
    maxTouchPoints: rest.maxTouchPoints ?? 0,
    registerServiceWorker: async () => {
      calls.push('serviceWorker');
      return rest.registerServiceWorker ? rest.registerServiceWorker() : true;
    },
    checkPopup: () => {
      calls.push('popup');
      return rest.checkPopup ? rest.checkPopup() : true;
    },
    checkStorage: () => {
      calls.push('storage');
      return rest.checkStorage ? rest.checkStorage() : true;
    },
    isChildWindow: () => (rest.isChildWindow ? rest.isChildWindow() : false),
  };
}

function storeWith(params: Partial<StartupParams>, login?: LoginInfo) {
  const store = setupStore(
    login ? { session: { status: 'loggedIn', login, endedReasonKey: null } } : undefined,
  );
  store.dispatch(startupParamsLoaded({ ...defaultStartupParams(), ...params }));
  return store;
}

const config = (over: Partial<RuntimeConfig> = {}): RuntimeConfig => ({ ...DEFAULT_RUNTIME_CONFIG, ...over });

let consoleError: ReturnType<typeof vi.spyOn>;
beforeEach(() => {
  consoleError = vi.spyOn(console, 'error').mockImplementation(() => {});
});
afterEach(() => consoleError.mockRestore());

describe('runStartupChecks: the order of spec §2', () => {
  it('runs service worker, browser check, popup, storage, then the JT login, and passes', async () => {
    let loginAt = -1;
    const env = fakeEnv();
    server.use(ok('login', LOGIN_RESULT));
    const store = storeWith({ actor: 1, loginId: 'jt-001', password: 'pw', isMcStartup: 1 });
    // Records when the login starts relative to the other checks.
    const unsubscribe = store.subscribe(() => {
      if (loginAt < 0 && store.getState().session.status === 'loggingIn') loginAt = env.calls.length;
    });
    const outcome = await runStartupChecks(store, config(), env);
    unsubscribe();
    expect(env.calls).toEqual(['serviceWorker', 'popup', 'storage']);
    expect(loginAt).toBe(3);
    expect(outcome).toEqual({ kind: 'navigate', to: '/env-setting' });
    expect(store.getState().startup.status).toBe('done');
    expect(store.getState().session.login?.loginId).toBe('jt-001');
  });

  it('marks the checks as started while they run', async () => {
    const store = storeWith({ actor: 2 });
    let seen: string | null = null;
    const env = fakeEnv({
      registerServiceWorker: async () => {
        seen = store.getState().startup.status;
        return true;
      },
    });
    await runStartupChecks(store, config(), env);
    expect(seen).toBe('checking');
  });

  it('only logs a service-worker failure and goes on', async () => {
    const env = fakeEnv({ registerServiceWorker: () => Promise.reject(new Error('sw down')) });
    const outcome = await runStartupChecks(storeWith({ actor: 2 }), config(), env);
    expect(outcome).toEqual({ kind: 'navigate', to: '/login' });
    expect(consoleError).toHaveBeenCalledWith(expect.stringContaining('service worker registration failed'));
  });
});

describe('step 3: browser and OS', () => {
  it.each([
    [WIN_FIREFOX, '/alerting/excluded-browser'],
    [WIN_7, '/alerting/excluded-os-version'],
    [LINUX_CHROME, '/alerting/excluded-os'],
    [MAC_SAFARI_OLD, '/alerting/excluded-browser-version'],
  ])('%s → %s, and stops', async (userAgent, to) => {
    const store = storeWith({ actor: 1 });
    const env = fakeEnv({ userAgent });
    expect(await runStartupChecks(store, config(), env)).toEqual({ kind: 'stop', to });
    expect(env.calls).toEqual(['serviceWorker']);
    expect(store.getState().startup.status).toBe('stopped');
  });

  it('accepts a row from the runtime config', async () => {
    const extra = [{ os: 'Linux', browser: 'Chrome', minOs: 0, minBrowser: 80 }];
    const env = fakeEnv({ userAgent: LINUX_CHROME });
    const outcome = await runStartupChecks(
      storeWith({ actor: 2 }),
      config({ extraAllowedEnvironments: extra }),
      env,
    );
    expect(outcome).toEqual({ kind: 'navigate', to: '/login' });
  });
});

describe('step 4: popup check (actor 1 only)', () => {
  it('stops at /alerting/popup-block when blocked', async () => {
    const store = storeWith({ actor: 1 });
    const env = fakeEnv({ checkPopup: () => false });
    expect(await runStartupChecks(store, config(), env)).toEqual({
      kind: 'stop',
      to: '/alerting/popup-block',
    });
    expect(env.calls).toEqual(['serviceWorker', 'popup']);
    expect(store.getState().startup.status).toBe('stopped');
  });

  it('is skipped for other actors', async () => {
    const env = fakeEnv({ checkPopup: () => false });
    await runStartupChecks(storeWith({ actor: 3 }), config(), env);
    expect(env.calls).toEqual(['serviceWorker', 'storage']);
  });
});

describe('step 5: storage check (PC only)', () => {
  it('stops at /alerting/storage-block on a PC', async () => {
    const env = fakeEnv({ checkStorage: () => false });
    expect(await runStartupChecks(storeWith({ actor: 2 }), config(), env)).toEqual({
      kind: 'stop',
      to: '/alerting/storage-block',
    });
  });

  it('is skipped on a phone', async () => {
    const env = fakeEnv({ userAgent: ANDROID_PHONE, checkStorage: () => false });
    const outcome = await runStartupChecks(storeWith({ actor: 1 }), config(), env);
    expect(env.calls).toEqual(['serviceWorker', 'popup']);
    expect(outcome).toEqual({ kind: 'navigate', to: '/login' });
  });
});

describe('desktop application (spec §1)', () => {
  const desktopApp = { userAgentToken: 'ProctorDesktop/', setupUrl: 'https://example.com/setup' };

  it('sends a tester without the token to the setup page, before the popup check', async () => {
    const store = storeWith({ actor: 1 });
    const env = fakeEnv();
    expect(await runStartupChecks(store, config({ desktopApp }), env)).toEqual({
      kind: 'external',
      url: 'https://example.com/setup',
    });
    expect(env.calls).toEqual(['serviceWorker']);
    expect(store.getState().startup.status).toBe('stopped');
  });

  it('lets the application itself through', async () => {
    const env = fakeEnv({ userAgent: `${WIN_CHROME} ProctorDesktop/1.0.0` });
    expect(await runStartupChecks(storeWith({ actor: 1 }), config({ desktopApp }), env)).toEqual({
      kind: 'navigate',
      to: '/login',
    });
  });

  it('does not apply to other actors', async () => {
    expect(await runStartupChecks(storeWith({ actor: 2 }), config({ desktopApp }), fakeEnv())).toEqual({
      kind: 'navigate',
      to: '/login',
    });
  });
});

describe('step 6: routing', () => {
  const checker: LoginInfo = {
    accessToken: 't',
    examUserName: 'C',
    loginId: 'c1',
    actor: 2,
    kicked: null,
    groupId: null,
    group: null,
  };
  const tester: LoginInfo = { ...checker, loginId: 't1', actor: 1 };

  it('a tester start-up without loginId goes to /login', async () => {
    expect(await runStartupChecks(storeWith({ actor: 1 }), config(), fakeEnv())).toEqual({
      kind: 'navigate',
      to: '/login',
    });
  });

  it('other actors go to /login, or stay there', async () => {
    expect(await runStartupChecks(storeWith({ actor: 4 }), config(), fakeEnv())).toEqual({
      kind: 'navigate',
      to: '/login',
    });
    expect(await runStartupChecks(storeWith({ actor: 4 }), config(), fakeEnv({ path: '/login/' }))).toEqual({
      kind: 'stay',
    });
  });

  it('a JT start-up whose login fails goes to /login', async () => {
    server.use(fail('login', 401, 'bad credentials'));
    const store = storeWith({ actor: 1, loginId: 'jt-001', password: 'wrong' });
    expect(await runStartupChecks(store, config(), fakeEnv())).toEqual({ kind: 'navigate', to: '/login' });
    expect(store.getState().session.login).toBeNull();
  });

  it('a JT start-up with isMcStartup 0 opens the first page in a child window', async () => {
    server.use(ok('login', LOGIN_RESULT));
    const store = storeWith({ actor: 1, loginId: 'jt-001', password: 'pw', isMcStartup: 0 });
    expect(await runStartupChecks(store, config(), fakeEnv())).toEqual({
      kind: 'childWindow',
      to: '/env-setting',
    });
  });

  it('a tester with isMcStartup 0 and no loginId opens /login in a child window', async () => {
    expect(await runStartupChecks(storeWith({ actor: 1, isMcStartup: 0 }), config(), fakeEnv())).toEqual({
      kind: 'childWindow',
      to: '/login',
    });
  });

  it('inside the child window the target opens in place', async () => {
    const env = fakeEnv({ isChildWindow: () => true });
    expect(await runStartupChecks(storeWith({ actor: 1, isMcStartup: 0 }), config(), env)).toEqual({
      kind: 'navigate',
      to: '/login',
    });
  });

  it('a refresh while logged in stays on a real page', async () => {
    const env = fakeEnv({ path: '/examinees/12' });
    expect(await runStartupChecks(storeWith({ actor: 2 }, checker), config(), env)).toEqual({ kind: 'stay' });
  });

  it('a logged-in session on "/" goes to its first page', async () => {
    expect(await runStartupChecks(storeWith({ actor: 2 }, checker), config(), fakeEnv())).toEqual({
      kind: 'navigate',
      to: '/monitoring',
    });
  });

  it('a logged-in tester in the child window stays on the tester page without logging in again', async () => {
    const env = fakeEnv({ path: '/env-setting', isChildWindow: () => true });
    const store = storeWith({ actor: 1, loginId: 'jt-001', password: 'pw', isMcStartup: 0 }, tester);
    expect(await runStartupChecks(store, config(), env)).toEqual({ kind: 'stay' });
  });

  it('open pages other than /login are left alone without a login', async () => {
    expect(await runStartupChecks(storeWith({ actor: 1 }), config(), fakeEnv({ path: '/terms' }))).toEqual({
      kind: 'stay',
    });
    expect(
      await runStartupChecks(storeWith({}), config(), fakeEnv({ path: '/alerting/system-error' })),
    ).toEqual({
      kind: 'stay',
    });
  });

  it('a path matching no route stays, so the router shows the 404 page (spec §2)', async () => {
    expect(await runStartupChecks(storeWith({}), config(), fakeEnv({ path: '/no/such/page' }))).toEqual({
      kind: 'stay',
    });
  });

  it('a protected page without a login goes to /login', async () => {
    expect(await runStartupChecks(storeWith({}), config(), fakeEnv({ path: '/env-setting' }))).toEqual({
      kind: 'navigate',
      to: '/login',
    });
  });

  it("an actor outside 1–5 logs 'undefined actor specified' and goes to /login", async () => {
    expect(await runStartupChecks(storeWith({ actor: 9 }), config(), fakeEnv())).toEqual({
      kind: 'navigate',
      to: '/login',
    });
    expect(consoleError).toHaveBeenCalledWith(expect.stringContaining('undefined actor specified: 9'));
  });
});

describe('applyStartupOutcome', () => {
  const setup = (childOk = true) => {
    const router = { navigate: vi.fn() };
    const env = { openChildWindow: vi.fn(() => childOk), assign: vi.fn() };
    return { router, env };
  };

  it.each<[StartupOutcome, string | null]>([
    [{ kind: 'stop', to: '/alerting/popup-block' }, '/alerting/popup-block'],
    [{ kind: 'navigate', to: '/login' }, '/login'],
    [{ kind: 'stay' }, null],
  ])('%j → navigate %s', async (outcome, to) => {
    const { router, env } = setup();
    await applyStartupOutcome(outcome, router, env);
    if (to) expect(router.navigate).toHaveBeenCalledWith(to, { replace: true });
    else expect(router.navigate).not.toHaveBeenCalled();
  });

  it('leaves for the desktop setup page', async () => {
    const { router, env } = setup();
    await applyStartupOutcome({ kind: 'external', url: 'https://example.com/setup' }, router, env);
    expect(env.assign).toHaveBeenCalledWith('https://example.com/setup');
    expect(router.navigate).not.toHaveBeenCalled();
  });

  it('opens the child window, then shows the close page here', async () => {
    const { router, env } = setup();
    await applyStartupOutcome({ kind: 'childWindow', to: '/env-setting' }, router, env);
    expect(env.openChildWindow).toHaveBeenCalledWith('/env-setting');
    expect(router.navigate).toHaveBeenCalledWith('/close', { replace: true });
  });

  it('falls back to the popup-block page when the child window is blocked', async () => {
    const { router, env } = setup(false);
    await applyStartupOutcome({ kind: 'childWindow', to: '/env-setting' }, router, env);
    expect(router.navigate).toHaveBeenCalledWith('/alerting/popup-block', { replace: true });
  });
});
