import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { http, HttpResponse } from 'msw';
import { server, fail } from '../../tests/msw/server';
import { loginState } from '../../tests/render';
import { setupStore } from './store';
import { setNavigator } from './navigation';
import { call } from '../api/client';
import { hashString } from '../lib/hash';
import { selectErrorFor } from '../features/errors/errors-slice';
import { startupParamsLoaded } from '../features/startup/startup-slice';
import { defaultStartupParams } from '../features/startup/startup-fields';
import { loggedInToTestSystem } from '../features/tester/tester-slice';
import type { Actor } from './permissions';

// The error rules of spec §6 and §8 with a real store and the real API client (app/app-listeners.ts).
const navigate = vi.fn();
beforeEach(() => {
  navigate.mockClear();
  setNavigator(navigate);
});
afterEach(() => setNavigator(null));

function storeAs(actor: Actor | null) {
  return setupStore(actor ? loginState(actor) : {});
}

async function failing(endpoint: string, status: number, method: 'get' | 'post' = 'get') {
  server.use(fail(endpoint, status, `failed with ${status}`, undefined, method));
  await call(endpoint, method === 'post' ? { method: 'POST', data: {} } : {}).catch(() => undefined);
}

describe('error records (spec §3 "Error record", §8)', () => {
  it('keeps the endpoint, status and message of each failure, keyed by a hash of the endpoint', async () => {
    const store = storeAs(4);
    await failing('management_summary', 503);
    await failing('logins', 400);
    const byEndpoint = store.getState().errors.byEndpoint;
    expect(Object.keys(byEndpoint).sort()).toEqual(
      [hashString('management_summary'), hashString('logins')].sort(),
    );
    expect(selectErrorFor('management_summary')(store.getState())).toMatchObject({
      endpoint: 'management_summary',
      status: 503,
      message: 'failed with 503',
    });
    // A later failure of the same endpoint replaces its record.
    await failing('logins', 404);
    expect(selectErrorFor('logins')(store.getState())?.status).toBe(404);
    expect(Object.keys(store.getState().errors.byEndpoint)).toHaveLength(2);
  });
});

describe('401, 405 and 500 (spec §6, §8)', () => {
  it.each([1, 2, 3, 4, 5] as const)('a 401 logs actor %i out and goes to the login page', async (actor) => {
    const store = storeAs(actor);
    await failing('tester/detail', 401);
    expect(store.getState().session.login).toBeNull();
    expect(store.getState().session.endedReasonKey).toBe('errors:sessionExpired');
    expect(navigate).toHaveBeenCalledWith('/login', { replace: true });
  });

  it.each([
    ['session_superseded', 'errors:sessionSuperseded'],
    ['session_ended', 'errors:sessionEnded'],
  ])('a 401 with code %s says why the session ended (%s)', async (code, key) => {
    const store = storeAs(1);
    server.use(
      http.get('*/api/v1/tester/detail.php', () =>
        HttpResponse.json({ status: 401, message: 'ended', result: null, code }, { status: 401 }),
      ),
    );
    await call('tester/detail').catch(() => undefined);
    expect(store.getState().session.login).toBeNull();
    expect(store.getState().session.endedReasonKey).toBe(key);
    expect(navigate).toHaveBeenCalledWith('/login', { replace: true });
  });

  it('a 401 before login (a wrong password) does not navigate', async () => {
    storeAs(null);
    await failing('login', 401, 'post');
    expect(navigate).not.toHaveBeenCalled();
  });

  it('a 405 on tester detail logs the tester out; a 405 elsewhere does not', async () => {
    const store = storeAs(1);
    await failing('tester/status', 405, 'post');
    expect(store.getState().session.login).not.toBeNull();
    await failing('tester/detail', 405);
    expect(store.getState().session.login).toBeNull();
    expect(store.getState().session.endedReasonKey).toBe('errors:testerLoggedOut');
    expect(navigate).toHaveBeenCalledWith('/login', { replace: true });
  });

  it('a 500 sends a tester not logged in to the test system to /alerting/system-error', async () => {
    storeAs(1);
    await failing('tester/detail', 500);
    expect(navigate).toHaveBeenCalledWith('/alerting/system-error', { replace: true });
  });

  it('a 500 leaves a tester who is logged in to the test system where it is', async () => {
    const store = storeAs(1);
    store.dispatch(loggedInToTestSystem());
    await failing('tester/detail', 500);
    expect(navigate).not.toHaveBeenCalled();
    expect(store.getState().session.login).not.toBeNull();
  });

  it.each([2, 3, 4, 5] as const)('a 500 does not redirect actor %i', async (actor) => {
    const store = storeAs(actor);
    await failing('management_summary', 500);
    expect(navigate).not.toHaveBeenCalled();
    expect(store.getState().session.login).not.toBeNull();
  });
});

describe('debug flag logs (spec §8)', () => {
  function captureLogs(): Array<Record<string, unknown>> {
    const sent: Array<Record<string, unknown>> = [];
    server.use(
      http.post('*/api/v1/log_receive.php', async ({ request }) => {
        sent.push((await request.json()) as Record<string, unknown>);
        return HttpResponse.json({ status: 200, message: 'OK', result: null });
      }),
    );
    return sent;
  }
  function debugStore(isDebug: number | null) {
    const store = storeAs(3);
    store.dispatch(startupParamsLoaded({ ...defaultStartupParams(), isDebug }));
    return store;
  }

  it('with isDebug set, a 401 or 405 sends an auth-error log and a network error a network-error log', async () => {
    const sent = captureLogs();
    debugStore(1);
    await failing('testers', 405);
    server.use(http.get('*/api/v1/testers/conditions.php', () => HttpResponse.error()));
    await call('testers/conditions').catch(() => undefined);
    await failing('logins', 401);
    await vi.waitFor(() => expect(sent).toHaveLength(3));
    expect(sent.map((e) => e.tag1)).toEqual(['auth-error', 'network-error', 'auth-error']);
    expect(sent[0]).toMatchObject({ type: 'error', module: 'api' });
    expect(sent[0]?.details).toContain('testers: 405');
  });

  it('sends nothing for other statuses, nor without the flag', async () => {
    const sent = captureLogs();
    debugStore(1);
    await failing('logins', 500);
    debugStore(null);
    await failing('logins', 401);
    await new Promise((r) => setTimeout(r, 50));
    expect(sent).toEqual([]);
  });
});
