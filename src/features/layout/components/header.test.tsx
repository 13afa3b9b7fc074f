import { render, screen, waitFor } from '@testing-library/react';
import { combineReducers, configureStore } from '@reduxjs/toolkit';
import { createMemoryRouter, RouterProvider } from 'react-router-dom';
import { AppProviders } from '../../../app/app';
import type { AppStore } from '../../../app/store';
import startup from '../../startup/startup-slice';
import session from '../../session/session-slice';
import errors from '../../errors/errors-slice';
import layout from '../layout-slice';
import userEvent from '@testing-library/user-event';
import { renderWithProviders, loginState } from '../../../../tests/render';
import { ok, server } from '../../../../tests/msw/server';
import type { RootState } from '../../../app/store';
import type { Actor, PageId } from '../../../app/permissions';
import { defaultStartupParams } from '../../startup/startup-fields';
import { Header, isLogoutVisible, targetDomain } from './header';
import { ModalHost } from './modal-host';

const LOGOUT = 'ログアウト';

/** A store with a minimal tester slice: the header reads only its testerState and examiningSittingKnown. */
function renderWithTesterSlice(testerState: number, examiningSittingKnown = true) {
  const tester = (
    s: { testerState: number; examiningSittingKnown: boolean } = { testerState, examiningSittingKnown },
  ) => s;
  const store = configureStore({
    reducer: combineReducers({ startup, session, errors, layout, tester }),
    preloadedState: loginState(1),
  });
  const router = createMemoryRouter([{ path: '*', element: <Header page="examining" loginHref="/login" /> }]);
  return render(
    <AppProviders store={store as unknown as AppStore}>
      <RouterProvider router={router} />
    </AppProviders>,
  );
}

function renderHeader(opts: { actor?: Actor; page: PageId | null; disabled?: boolean; target?: string }) {
  const preloaded: Partial<RootState> = {
    ...(opts.actor ? loginState(opts.actor) : {}),
    startup: {
      params: { ...defaultStartupParams(), target: opts.target ?? '' },
      status: 'done',
      serverTime: null,
      clockOffsetMs: 0,
    },
    layout: {
      visible: true,
      headerLogoutDisabled: opts.disabled ?? false,
      loadingCount: 0,
      uploadingCount: 0,
      modals: [],
    },
  };
  return renderWithProviders(
    <>
      <Header page={opts.page} loginHref="/login" />
      <ModalHost />
    </>,
    { preloadedState: preloaded, route: '/somewhere' },
  );
}

describe('Header', () => {
  afterEach(() => vi.restoreAllMocks());

  it('shows the target host as a badge and the user name with the login id', () => {
    renderHeader({ actor: 3, page: 'examinees', target: 'https://exam.example.com/start?x=1' });
    expect(screen.getByTestId('target-domain')).toHaveTextContent('exam.example.com');
    expect(screen.getByTestId('header-user')).toHaveTextContent('テスト太郎（user3）');
  });

  it('has no logout button when not logged in, and a close button on the login page', async () => {
    const close = vi.spyOn(window, 'close').mockImplementation(() => undefined);
    renderHeader({ page: 'login' });
    expect(screen.queryByRole('button', { name: LOGOUT })).not.toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'ウィンドウを閉じる' }));
    expect(close).toHaveBeenCalled();
  });

  it('has no close button off the login page', () => {
    renderHeader({ actor: 4, page: 'management' });
    expect(screen.queryByRole('button', { name: 'ウィンドウを閉じる' })).not.toBeInTheDocument();
  });

  it.each([3, 4, 5] as const)('shows logout to actor %i on any page', (actor) => {
    renderHeader({ actor, page: 'examineeDetail' });
    expect(screen.getByRole('button', { name: LOGOUT })).toBeEnabled();
  });

  it('shows logout to a tester on env-setting only among the steps', () => {
    renderHeader({ actor: 1, page: 'envSetting' });
    expect(screen.getByRole('button', { name: LOGOUT })).toBeInTheDocument();
  });

  it.each(['identification', 'identificationAi', 'examEnd'] as const)(
    'hides logout from a tester on %s',
    (page) => {
      renderHeader({ actor: 1, page });
      expect(screen.queryByRole('button', { name: LOGOUT })).not.toBeInTheDocument();
    },
  );

  it('on examining, hides logout from a tester who is EXAMING and shows it otherwise', () => {
    const a = renderWithTesterSlice(5);
    expect(screen.queryByRole('button', { name: LOGOUT })).not.toBeInTheDocument();
    a.unmount();
    renderWithTesterSlice(4);
    expect(screen.getByRole('button', { name: LOGOUT })).toBeInTheDocument();
  });

  it('on examining, hides logout until the page knows where the sitting stands (a reload mid-exam)', () => {
    // The tester state is its default (1) while /examining still opens the sitting: it may be EXAMING.
    const a = renderWithTesterSlice(1, false);
    expect(screen.queryByRole('button', { name: LOGOUT })).not.toBeInTheDocument();
    a.unmount();
    renderWithTesterSlice(4, true);
    expect(screen.getByRole('button', { name: LOGOUT })).toBeInTheDocument();
  });

  it('on examining without a tester slice yet, shows no logout (nothing is known of the sitting)', () => {
    renderHeader({ actor: 1, page: 'examining' });
    expect(screen.queryByRole('button', { name: LOGOUT })).not.toBeInTheDocument();
  });

  it('disables logout while the header-logout-disabled flag is set', () => {
    renderHeader({ actor: 4, page: 'management', disabled: true });
    expect(screen.getByRole('button', { name: LOGOUT })).toBeDisabled();
  });

  it('logs a manager out at once and goes to /login', async () => {
    server.use(ok('logout', null));
    const { store, router } = renderHeader({ actor: 4, page: 'management' });
    await userEvent.click(screen.getByRole('button', { name: LOGOUT }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/login'));
    expect(store.getState().session.login).toBeNull();
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
  });

  it("asks a checker first, warning that matched examinees' connections will be cut; Cancel keeps the session", async () => {
    const { store, router } = renderHeader({ actor: 2, page: 'monitoring' });
    await userEvent.click(screen.getByRole('button', { name: LOGOUT }));
    const dialog = await screen.findByRole('dialog');
    expect(dialog).toHaveTextContent('マッチングしている受験者との接続が切断されます');
    expect(document.getElementById('global-confirm')).not.toBeNull();
    await userEvent.click(screen.getByRole('button', { name: 'キャンセル' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(store.getState().session.login).not.toBeNull();
    expect(router.state.location.pathname).toBe('/somewhere');
  });

  it('logs a checker out after OK', async () => {
    server.use(ok('logout', null));
    const { store, router } = renderHeader({ actor: 2, page: 'monitoring' });
    await userEvent.click(screen.getByRole('button', { name: LOGOUT }));
    await screen.findByRole('dialog');
    await userEvent.click(screen.getByRole('button', { name: 'OK' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/login'));
    expect(store.getState().session.login).toBeNull();
  });
});

describe('isLogoutVisible / targetDomain', () => {
  it('follows spec §2', () => {
    expect(isLogoutVisible(null, 'login', null, false)).toBe(false);
    expect(isLogoutVisible(2, 'monitoring', null, false)).toBe(true);
    expect(isLogoutVisible(1, 'envSetting', 5, false)).toBe(true);
    expect(isLogoutVisible(1, 'examining', 5, true)).toBe(false);
    expect(isLogoutVisible(1, 'examining', 6, true)).toBe(true);
    expect(isLogoutVisible(1, 'examining', 6, false)).toBe(false);
    expect(isLogoutVisible(1, null, null, false)).toBe(false);
  });
  it('reads the host of a URL or a bare host', () => {
    expect(targetDomain('https://a.example.com:8443/x')).toBe('a.example.com:8443');
    expect(targetDomain('b.example.com')).toBe('b.example.com');
    expect(targetDomain('')).toBe('');
  });
});
