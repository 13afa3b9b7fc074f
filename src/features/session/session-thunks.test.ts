import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { http, HttpResponse } from 'msw';
// Tests may use the shared MSW server: the layer rule that keeps tests/ out of src/ is meant for app code.
import { server, fail } from '../../../tests/msw/server';
import { loginState } from '../../../tests/render';
import { setupStore } from '../../app/store';
import { setNavigator } from '../../app/navigation';
import { call } from '../../api/client';
import { logoutRequested } from './session-thunks';
import { restoreSession, saveSession, SESSION_KEY } from './session-storage';

const navigate = vi.fn();
beforeEach(() => {
  navigate.mockClear();
  setNavigator(navigate);
  sessionStorage.clear();
});
afterEach(() => {
  setNavigator(null);
  sessionStorage.clear();
});

describe('a deliberate logout', () => {
  it('forgets the stored session at once, before the server answers, and a 401 meanwhile is no expiry', async () => {
    const state = loginState(4);
    saveSession(state.session!.login!);
    const store = setupStore(state);
    let answer!: () => void;
    const answered = new Promise<void>((r) => (answer = r));
    server.use(
      http.post('*/api/v1/logout.php', async () => {
        await answered;
        return HttpResponse.json({ status: 200, message: 'OK', result: null });
      }),
      fail('management_summary', 401, 'Unauthorized', undefined, 'get'),
    );
    const done = store.dispatch(logoutRequested());
    // A page reached from now on (Back, a footer link, a reload) does not come back logged in.
    expect(sessionStorage.getItem(SESSION_KEY)).toBeNull();
    expect(restoreSession()).toBeNull();
    expect(store.getState().session.status).toBe('loggingOut');
    // A request the server refuses meanwhile (its session already ended) does not say "expired".
    await call('management_summary').catch(() => undefined);
    expect(store.getState().session.endedReasonKey).toBeNull();
    expect(navigate).not.toHaveBeenCalled();
    answer();
    await done;
    expect(store.getState().session).toMatchObject({
      status: 'loggedOut',
      login: null,
      endedReasonKey: null,
    });
  });

  it('a 401 outside a logout still says the login expired', async () => {
    const store = setupStore(loginState(4));
    server.use(fail('management_summary', 401, 'Unauthorized', undefined, 'get'));
    await call('management_summary').catch(() => undefined);
    expect(store.getState().session.endedReasonKey).toBe('errors:sessionExpired');
  });
});
