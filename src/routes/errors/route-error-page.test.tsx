import { act, render, screen, waitFor } from '@testing-library/react';
import { createMemoryRouter } from 'react-router-dom';
import { App } from '../../app/app';
import { setupStore } from '../../app/store';
import { i18next } from '../../i18n';
import { CHUNK_RELOAD_KEY } from './chunk-reload';
import { RouteErrorPage } from './route-error-page';

function renderThrowing(error: unknown, lang: 'ja' | 'en' = 'ja') {
  const router = createMemoryRouter([
    {
      path: '/',
      loader: () => {
        throw error;
      },
      element: null,
      errorElement: <RouteErrorPage />,
    },
  ]);
  act(() => void i18next.changeLanguage(lang));
  return render(<App store={setupStore()} router={router} />);
}

describe('RouteErrorPage', () => {
  let reload: ReturnType<typeof vi.fn>;
  beforeEach(() => {
    reload = vi.fn();
    vi.stubGlobal('location', { ...window.location, reload });
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
  });
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.restoreAllMocks();
  });

  it('shows the 404 text', async () => {
    renderThrowing(new Response('', { status: 404 }), 'en');
    expect(await screen.findByText('This page could not be found')).toBeInTheDocument();
  });

  it('shows the 403 page', async () => {
    renderThrowing(new Response('', { status: 403 }));
    expect(await screen.findByText('このページを表示する権限がありません。')).toBeInTheDocument();
  });

  it('shows a generic error with its status', async () => {
    renderThrowing(new Response('', { status: 502 }));
    expect(await screen.findByText('エラーが発生しました（ステータス 502）。')).toBeInTheDocument();
  });

  it('uses 500 for a thrown Error', async () => {
    renderThrowing(new Error('kaboom'));
    expect(await screen.findByText('エラーが発生しました（ステータス 500）。')).toBeInTheDocument();
    expect(screen.getByText('kaboom')).toBeInTheDocument();
  });

  it('reloads once after a chunk-load failure', async () => {
    renderThrowing(new TypeError('Failed to fetch dynamically imported module: /assets/p.js'));
    expect(await screen.findByRole('status')).toHaveTextContent('新しいバージョンを読み込んでいます…');
    // The reload runs in a passive effect, which may come after the status is on screen.
    await waitFor(() => expect(reload).toHaveBeenCalledTimes(1));
    expect(sessionStorage.getItem(CHUNK_RELOAD_KEY)).not.toBeNull();
  });

  it('does not reload again within 60 s, and shows the error instead', async () => {
    sessionStorage.setItem(CHUNK_RELOAD_KEY, String(Date.now() - 10_000));
    renderThrowing(new TypeError('Failed to fetch dynamically imported module: /assets/p.js'));
    expect(await screen.findByText('エラーが発生しました（ステータス 500）。')).toBeInTheDocument();
    expect(reload).not.toHaveBeenCalled();
  });
});
