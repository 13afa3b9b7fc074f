import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { renderWithProviders } from '../../../tests/render';
import { fail, ok, server } from '../../../tests/msw/server';
import type { RootState } from '../../app/store';
import { defaultStartupParams as defaults } from '../../features/startup/startup-fields';
import LoginPage from './login-page';

const loginResult = (actor: number) => ({
  access_token: 'tok-0123456789abcdef0123',
  exam_user_name: '山田',
  login_id: 'u1',
  actor,
  kicked: null,
  group_id: 1,
  group: 'G',
});

async function submit(loginId: string, password: string) {
  await userEvent.type(screen.getByLabelText('ログインID'), loginId);
  await userEvent.type(screen.getByLabelText('パスワード'), password);
  await userEvent.click(screen.getByRole('button', { name: 'ログイン' }));
}

/** jsdom has no mediaDevices: the camera line settles on "cannot check". */
const cameraSettled = () =>
  waitFor(() => expect(screen.getByTestId('camera-status')).not.toHaveTextContent('確認しています'));

describe('LoginPage', () => {
  afterEach(() => vi.unstubAllGlobals());

  it.each([
    [1, '/env-setting'],
    [2, '/monitoring'],
    [3, '/examinees'],
    [4, '/management'],
    [5, '/management'],
  ])('actor %i goes to its first page %s, with the login id trimmed', async (actor, first) => {
    let sent: unknown = null;
    server.use(
      http.post('*/api/v1/login.php', async ({ request }) => {
        sent = await request.json();
        return HttpResponse.json({ status: 200, message: 'OK', result: loginResult(actor) });
      }),
    );
    const { router, store } = renderWithProviders(<LoginPage />, { route: '/login' });
    await submit('  u1  ', 'pw');
    await waitFor(() => expect(router.state.location.pathname).toBe(first));
    expect(sent).toEqual({ login_id: 'u1', password: 'pw' });
    expect(store.getState().session.login?.actor).toBe(actor);
  });

  it('shows the message of the error code in Japanese', async () => {
    server.use(fail('login', 401, 'bad credentials', 'login_failed'));
    const { router } = renderWithProviders(<LoginPage />, { route: '/login' });
    await submit('u1', 'wrong');
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'ログインIDまたはパスワードが正しくありません。',
    );
    expect(router.state.location.pathname).toBe('/login');
  });

  it('shows the message in English for an English user', async () => {
    server.use(fail('login', 500, 'boom'));
    renderWithProviders(<LoginPage />, { route: '/login', lang: 'en' });
    await userEvent.type(screen.getByLabelText('Login ID'), 'u1');
    await userEvent.type(screen.getByLabelText('Password'), 'pw');
    await userEvent.click(screen.getByRole('button', { name: 'Log in' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('A system error has occurred.');
  });

  it('rejects an actor outside the five', async () => {
    server.use(ok('login', loginResult(9)));
    renderWithProviders(<LoginPage />, { route: '/login' });
    await submit('u1', 'pw');
    expect(await screen.findByRole('alert')).toHaveTextContent('undefined actor specified');
  });

  it('says why the last session ended', async () => {
    const preloadedState: Partial<RootState> = {
      session: { status: 'loggedOut', login: null, endedReasonKey: 'errors:sessionExpired' },
    };
    renderWithProviders(<LoginPage />, { route: '/login', preloadedState });
    expect(screen.getByTestId('ended-reason')).toHaveTextContent(
      'ログインの有効期限が切れたため、ログアウトしました。',
    );
    await cameraSettled();
  });

  it('links forgotten id to the inquiry page and forgotten password to passwordUrl when set', async () => {
    renderWithProviders(<LoginPage />, {
      route: '/login',
      preloadedState: {
        startup: {
          status: 'done',
          serverTime: null,
          clockOffsetMs: 0,
          params: { ...defaults(), passwordUrl: 'https://help.example.com/pw' },
        },
      },
    });
    expect(screen.getByRole('link', { name: /ログインIDをお忘れの方/ })).toHaveAttribute('href', '/inquiry');
    expect(screen.getByRole('link', { name: /パスワードをお忘れの方/ })).toHaveAttribute(
      'href',
      'https://help.example.com/pw',
    );
    await cameraSettled();
  });

  it('shows the first camera, or that there is none', async () => {
    vi.stubGlobal('navigator', {
      ...navigator,
      userAgent: navigator.userAgent,
      mediaDevices: {
        enumerateDevices: () =>
          Promise.resolve([
            { kind: 'audioinput', label: 'Mic A', deviceId: 'a', groupId: 'g' },
            { kind: 'videoinput', label: 'HD Camera', deviceId: 'v', groupId: 'g' },
          ]),
      },
    });
    const first = renderWithProviders(<LoginPage />, { route: '/login' });
    await waitFor(() => expect(screen.getByTestId('camera-status')).toHaveTextContent('HD Camera'));
    first.unmount();

    vi.stubGlobal('navigator', {
      ...navigator,
      mediaDevices: { enumerateDevices: () => Promise.resolve([]) },
    });
    renderWithProviders(<LoginPage />, { route: '/login' });
    await waitFor(() =>
      expect(screen.getByTestId('camera-status')).toHaveTextContent('カメラが見つかりません'),
    );
  });

  it('opens the environment check', async () => {
    vi.stubGlobal('navigator', {
      userAgent: 'TestAgent/1.0',
      mediaDevices: {
        enumerateDevices: () =>
          Promise.resolve([{ kind: 'videoinput', label: '', deviceId: 'v', groupId: 'g' }]),
      },
    });
    renderWithProviders(<LoginPage />, { route: '/login' });
    await userEvent.click(screen.getByRole('button', { name: '動作環境チェック' }));
    const dialog = await screen.findByRole('dialog');
    await waitFor(() => expect(dialog).toHaveTextContent('カメラ: 1台'));
    expect(dialog).toHaveTextContent('マイク: 見つかりません');
    expect(dialog).toHaveTextContent('TestAgent/1.0');
  });
});
