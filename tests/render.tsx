import type { ReactElement, ReactNode } from 'react';
import { render } from '@testing-library/react';
import { Provider } from 'react-redux';
import { I18nextProvider } from 'react-i18next';
import { createMemoryRouter, RouterProvider } from 'react-router-dom';
import { setupStore, type RootState } from '../src/app/store';
import { i18next } from '../src/i18n';
import type { Actor } from '../src/app/permissions';

export interface RenderOptions {
  preloadedState?: Partial<RootState>;
  /** Shortcut: log in as this actor. */
  actor?: Actor;
  route?: string;
  lang?: 'ja' | 'en';
}

export function loginState(actor: Actor): Partial<RootState> {
  return {
    session: {
      status: 'loggedIn',
      endedReasonKey: null,
      login: {
        accessToken: 'test-token-0123456789abcdef',
        examUserName: 'テスト太郎',
        loginId: `user${actor}`,
        actor,
        kicked: null,
        groupId: 1,
        group: 'DEMO',
      },
    },
  };
}

/** Renders a component with a real store, i18n and a memory router (STYLE habit 11). */
export function renderWithProviders(ui: ReactElement, opts: RenderOptions = {}) {
  const store = setupStore({ ...(opts.actor ? loginState(opts.actor) : {}), ...opts.preloadedState });
  void i18next.changeLanguage(opts.lang ?? 'ja');
  const router = createMemoryRouter([{ path: '*', element: ui }], { initialEntries: [opts.route ?? '/'] });
  const Wrapper = ({ children }: { children: ReactNode }) => (
    <Provider store={store}>
      <I18nextProvider i18n={i18next}>{children}</I18nextProvider>
    </Provider>
  );
  const result = render(<RouterProvider router={router} />, { wrapper: Wrapper });
  return { store, router, ...result };
}
