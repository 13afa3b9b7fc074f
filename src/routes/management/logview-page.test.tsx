import { describe, expect, it } from 'vitest';
import { fireEvent, screen, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { renderWithProviders } from '../../../tests/render';
import { server } from '../../../tests/msw/server';
import LogviewPage from './logview-page';

const row = (id: number) => ({
  id,
  created_at: `2031-05-01 10:${String(id).padStart(2, '0')}:00`,
  source: 'audit',
  level: 'info',
  type: 'auth.login',
  module: '',
  path: '',
  location: `user:${id}`,
  details: '',
  login_id: 'sysadmin01',
  actor: 4,
  ip: '10.0.0.1',
});

describe('/logview', () => {
  it('validates the range, sends the filters, shows rows in the scroll area and pages', async () => {
    const seen: URLSearchParams[] = [];
    server.use(
      http.get('*/api/v1/logs/search.php', ({ request }) => {
        const q = new URL(request.url).searchParams;
        seen.push(q);
        const page = Number(q.get('page'));
        return HttpResponse.json({
          status: 200,
          message: 'OK',
          result: { count: 60, page_count: 2, page, list: [row(page)] },
        });
      }),
    );
    renderWithProviders(<LogviewPage />, { actor: 4 });
    expect(screen.getByRole('heading', { level: 1, name: 'ログ閲覧' })).toBeInTheDocument();
    fireEvent.change(screen.getByLabelText('開始日時'), { target: { value: '2031-05-02T00:00' } });
    fireEvent.change(screen.getByLabelText('終了日時'), { target: { value: '2031-05-01T00:00' } });
    fireEvent.click(screen.getByRole('button', { name: '検索' }));
    expect(await screen.findByText('終了日時は開始日時以降を指定してください。')).toBeInTheDocument();
    expect(seen).toHaveLength(0);

    fireEvent.change(screen.getByLabelText('終了日時'), { target: { value: '2031-05-03T12:30' } });
    fireEvent.change(screen.getByLabelText('ログの種類'), { target: { value: 'audit' } });
    fireEvent.change(screen.getByLabelText('アクター'), { target: { value: '4' } });
    fireEvent.change(screen.getByLabelText('ログインID'), { target: { value: ' sysadmin01 ' } });
    fireEvent.change(screen.getByLabelText('レベル'), { target: { value: 'info' } });
    fireEvent.change(screen.getByLabelText(/^文字列/), { target: { value: 'auth' } });
    fireEvent.click(screen.getByRole('button', { name: '検索' }));
    const region = await screen.findByRole('region', { name: 'ログの検索結果（新しい順）' });
    expect(region).toHaveClass('log-scroll');
    expect(within(region).getAllByTestId('log-row')).toHaveLength(1);
    expect(within(region).getByText('監査ログ')).toBeInTheDocument();
    expect(Object.fromEntries(seen[0]!)).toEqual({
      from: '2031-05-02 00:00',
      to: '2031-05-03 12:30',
      source: 'audit',
      actor: '4',
      login_id: 'sysadmin01',
      level: 'info',
      text: 'auth',
      page: '1',
      max_display_count: '50',
    });
    expect(screen.getByText('60件（1 / 2ページ）')).toBeInTheDocument();

    fireEvent.click(screen.getByRole('button', { name: '次のページ' }));
    expect(await screen.findByText('60件（2 / 2ページ）')).toBeInTheDocument();
    expect(seen[1]?.get('page')).toBe('2');
    expect(seen[1]?.get('login_id')).toBe('sysadmin01');
  });

  it('shows a forged error a browser reported apart from the server’s own errors', async () => {
    server.use(
      http.get('*/api/v1/logs/search.php', () =>
        HttpResponse.json({
          status: 200,
          message: 'OK',
          result: {
            count: 2,
            page_count: 1,
            page: 1,
            list: [
              { ...row(1), source: 'client', level: 'error', type: 'error', login_id: null, actor: null },
              { ...row(2), source: 'server', level: 'error', type: 'internal', login_id: null, actor: null },
            ],
          },
        }),
      ),
    );
    renderWithProviders(<LogviewPage />, { actor: 4 });
    fireEvent.click(screen.getByRole('button', { name: '検索' }));
    const region = await screen.findByRole('region', { name: 'ログの検索結果（新しい順）' });
    const [reported, own] = within(region).getAllByTestId('log-row');
    expect(within(reported!).getByText('利用者の端末からの報告')).toBeInTheDocument();
    expect(within(reported!).getByText('未ログイン')).toBeInTheDocument();
    expect(reported).not.toHaveClass('table-danger');
    expect(within(own!).queryByText('利用者の端末からの報告')).toBeNull();
    expect(own).toHaveClass('table-danger');
  });

  it('shows the empty message and the server failure', async () => {
    server.use(
      http.get('*/api/v1/logs/search.php', () =>
        HttpResponse.json({
          status: 200,
          message: 'OK',
          result: { count: 0, page_count: 1, page: 1, list: [] },
        }),
      ),
    );
    renderWithProviders(<LogviewPage />, { actor: 5 });
    fireEvent.click(screen.getByRole('button', { name: '検索' }));
    expect(await screen.findByText('該当するログはありません。')).toBeInTheDocument();
    server.use(
      http.get('*/api/v1/logs/search.php', () =>
        HttpResponse.json(
          { status: 400, message: '開始日時が正しくありません。', result: { field: 'from' } },
          { status: 400 },
        ),
      ),
    );
    fireEvent.click(screen.getByRole('button', { name: '検索' }));
    expect(await screen.findByText('開始日時が正しくありません。')).toBeInTheDocument();
  });
});
