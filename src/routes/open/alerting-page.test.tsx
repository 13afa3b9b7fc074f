import { act, render, screen } from '@testing-library/react';
import { createMemoryRouter, RouterProvider } from 'react-router-dom';
import { AppProviders } from '../../app/app';
import { setupStore } from '../../app/store';
import { i18next } from '../../i18n';
import AlertingPage from './alerting-page';

/** Renders the page under its real pattern (so the :id param is read), with a real store. */
function renderAlerting(
  entry: string | { pathname: string; search?: string; state?: unknown },
  lang: 'ja' | 'en' = 'ja',
) {
  act(() => void i18next.changeLanguage(lang));
  const router = createMemoryRouter([{ path: '/alerting/:id?', element: <AlertingPage /> }], {
    initialEntries: [entry],
  });
  return render(
    <AppProviders store={setupStore()}>
      <RouterProvider router={router} />
    </AppProviders>,
  );
}

describe('AlertingPage', () => {
  it('has the heading ページ表示エラー and a close-window icon button', () => {
    renderAlerting('/alerting/system-error');
    expect(screen.getByRole('heading', { level: 1, name: 'ページ表示エラー' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'ウィンドウを閉じる' })).toBeInTheDocument();
  });

  it.each([
    ['excluded-os', 'ご利用のOSには対応していません'],
    ['excluded-os-version', 'ご利用のOSのバージョンには対応していません'],
    ['excluded-browser', 'ご利用のブラウザーには対応していません'],
    ['excluded-browser-version', 'ご利用のブラウザーのバージョンには対応していません'],
    ['popup-block', 'ポップアップがブロックされています'],
    ['storage-block', 'ブラウザーのストレージを利用できません'],
    ['system-error', 'システムエラーが発生しました。'],
  ])('shows the message of %s', (id, text) => {
    renderAlerting(`/alerting/${id}`);
    expect(screen.getByTestId('alerting-message')).toHaveTextContent(text);
  });

  it.each(['/alerting', '/alerting/whatever'])('shows the default bad-request text for %s', (path) => {
    renderAlerting(path);
    expect(screen.getByTestId('alerting-message')).toHaveTextContent(
      'このウィンドウを閉じて、ログイン画面から再度ログインしてください。',
    );
  });

  it('shows a message given in the query', () => {
    renderAlerting({
      pathname: '/alerting',
      search: '?message=%E7%89%B9%E5%88%A5%E3%81%AA%E3%82%A8%E3%83%A9%E3%83%BC',
    });
    expect(screen.getByTestId('alerting-message')).toHaveTextContent('特別なエラー');
  });

  it('shows the page-not-found text for a {statusCode: 404} state', () => {
    renderAlerting({ pathname: '/alerting', state: { statusCode: 404 } }, 'en');
    expect(screen.getByTestId('alerting-message')).toHaveTextContent('This page could not be found');
  });

  it('shows a JSON statusCode given as JSON text in the state', () => {
    renderAlerting({ pathname: '/alerting', state: '{"statusCode":503}' });
    expect(screen.getByTestId('alerting-message')).toHaveTextContent('システムエラーが発生しました。');
    expect(screen.getByTestId('alerting-status')).toHaveTextContent('{"statusCode":503}');
  });

  it('is in English for an English user', () => {
    renderAlerting('/alerting/popup-block', 'en');
    expect(screen.getByRole('heading', { level: 1, name: 'Page display error' })).toBeInTheDocument();
    expect(screen.getByTestId('alerting-message')).toHaveTextContent('Pop-ups are blocked.');
  });
});
