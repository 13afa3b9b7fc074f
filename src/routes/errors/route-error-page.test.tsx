import { act, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { MemoryRouter } from 'react-router-dom';
import { AppProviders } from '../../app/app';
import { setupStore } from '../../app/store';
import { i18next } from '../../i18n';
import { CHUNK_RELOAD_KEY } from './chunk-reload';
import { RouteErrorBoundary } from './route-error-page';

function Throw({ error }: { error: unknown }): null {
  throw error;
}

/** A page that throws `error` while it renders, inside the routes' error boundary. */
function renderThrowing(error: unknown, lang: 'ja' | 'en' = 'ja') {
  act(() => void i18next.changeLanguage(lang));
  const ui = (resetKey: string, failing: boolean) => (
    <AppProviders store={setupStore()}>
      <MemoryRouter>
        <RouteErrorBoundary resetKey={resetKey}>
          {failing ? <Throw error={error} /> : <p>next page</p>}
        </RouteErrorBoundary>
      </MemoryRouter>
    </AppProviders>
  );
  const r = render(ui('a', true));
  return { ...r, navigateAway: () => r.rerender(ui('b', false)) };
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
    renderThrowing(Object.assign(new Error('gone'), { status: 404 }), 'en');
    expect(await screen.findByText('This page could not be found')).toBeInTheDocument();
  });

  it('shows the 403 page', async () => {
    renderThrowing(Object.assign(new Error('no'), { status: 403 }));
    expect(await screen.findByText('このページを表示する権限がありません。')).toBeInTheDocument();
  });

  it('shows a generic error with its status', async () => {
    renderThrowing(Object.assign(new Error('bad gateway'), { status: 502 }));
    expect(await screen.findByText('エラーが発生しました（ステータス 502）。')).toBeInTheDocument();
  });

  it('lets the next navigation render its page', async () => {
    const { navigateAway } = renderThrowing(new Error('kaboom'));
    expect(await screen.findByText('kaboom')).toBeInTheDocument();
    navigateAway();
    expect(await screen.findByText('next page')).toBeInTheDocument();
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

  it('does not reload again within 60 s: says the page could not be loaded and offers a retry', async () => {
    sessionStorage.setItem(CHUNK_RELOAD_KEY, String(Date.now() - 10_000));
    renderThrowing(new TypeError('Failed to fetch dynamically imported module: /assets/p.js'));
    expect(await screen.findByRole('heading', { name: 'ページを読み込めませんでした' })).toBeInTheDocument();
    expect(
      screen.getByText('通信状態を確認して、もう一度お試しください。ログインしたままです。'),
    ).toBeInTheDocument();
    // Neither the browser's English message nor a status the examinee cannot act on.
    expect(screen.queryByText(/dynamically imported module/)).toBeNull();
    expect(screen.queryByText(/ステータス/)).toBeNull();
    expect(reload).not.toHaveBeenCalled();
    fireEvent.click(screen.getByRole('button', { name: 'もう一度読み込む' }));
    expect(reload).toHaveBeenCalledTimes(1);
  });

  it('says the same in English', async () => {
    sessionStorage.setItem(CHUNK_RELOAD_KEY, String(Date.now() - 10_000));
    renderThrowing(new TypeError('Failed to fetch dynamically imported module: /assets/p.js'), 'en');
    expect(await screen.findByRole('heading', { name: 'The page could not be loaded' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Try again' })).toBeInTheDocument();
  });
});
