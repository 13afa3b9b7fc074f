import { describe, expect, it, vi } from 'vitest';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { renderWithProviders } from '../../../tests/render';
import { ok, server } from '../../../tests/msw/server';
import { ModalHost } from '../../features/layout/components/modal-host';
import ManagementPage from './management-page';
import AccessLimitPage from './access-limit-page';
import LoginsPage from './logins-page';
import DeleteSettingPage from './delete-setting-page';
import CreateShorturlPage from './create-shorturl-page';
import AnalysisRequestPage from './analysis-request-page';
import CheckersMonitoringPage from './checkers-monitoring-page';
import { validateShortUrl, emptyShortUrlForm } from '../../features/management/short-url-fields';
import { HISTORY_REFRESH_MS } from '../../features/management/components/analysis-request-view';

const withModals = (ui: React.ReactElement) => (
  <>
    {ui}
    <ModalHost />
  </>
);

describe('/management', () => {
  it('shows the menu and the summary', async () => {
    server.use(
      ok(
        'management_summary',
        { logins: { tester_count: 3, other_count: 2 }, delete_plan: { tester_count: 1, record_count: 4 } },
        'get',
      ),
      ok('admin_permission', { status: 200, process: 1, message: '' }, 'get'),
    );
    renderWithProviders(<ManagementPage />, { actor: 4 });
    expect(screen.getByRole('link', { name: '結果検索' })).toHaveAttribute('href', '/examinees');
    expect(screen.getByRole('link', { name: 'URL登録' })).toHaveAttribute('href', '/create-shorturl-List');
    expect(await screen.findByTestId('summary-tester-logins')).toHaveTextContent('3');
    expect(screen.getByRole('link', { name: '規約・注意事項の編集' })).toHaveAttribute('href', '/edit-terms');
  });

  it('offers every entry when admin_permission allows the IP', async () => {
    server.use(ok('admin_permission', { status: 200, process: 1, message: '' }, 'get'));
    renderWithProviders(<ManagementPage />, { actor: 5 });
    await waitFor(() =>
      expect(screen.getByRole('link', { name: '監視者マッチング状況' })).toBeInTheDocument(),
    );
    expect(screen.queryByTestId('ip-limited')).toBeNull();
  });

  it('shows the admin_permission message and hides the proctor entries when process is 0', async () => {
    server.use(
      ok(
        'admin_permission',
        { status: 403, process: 0, message: 'Access from this IP address is not allowed.' },
        'get',
      ),
    );
    renderWithProviders(<ManagementPage />, { actor: 4 });
    const note = await screen.findByTestId('ip-limited');
    expect(note).toHaveTextContent('このIPアドレスからは一部の管理機能を利用できません。');
    expect(note).toHaveTextContent('Access from this IP address is not allowed.');
    expect(screen.queryByRole('link', { name: '監視者マッチング状況' })).toBeNull();
    expect(screen.getByRole('link', { name: 'IPアクセス制限' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'ログ閲覧' })).toBeInTheDocument();
  });
});

describe('/access-limit', () => {
  it('validates with the spec messages, shows a 409 refusal, and needs a selection to delete', async () => {
    server.use(
      ok('access_limit/select_access_limit', { list: [] }, 'get'),
      http.post('*/api/v1/access_limit/insert_access_limit.php', () =>
        HttpResponse.json(
          { status: 409, message: 'You would lock yourself out.', code: 'access_limit_self_lockout' },
          { status: 409 },
        ),
      ),
    );
    renderWithProviders(withModals(<AccessLimitPage />), { actor: 4 });
    expect(await screen.findByText('アクセス制限はありません。')).toBeInTheDocument();
    fireEvent.click(screen.getByRole('button', { name: '追加' }));
    expect(await screen.findByText('IPアドレスとドメインのいずれかを入力してください。')).toBeInTheDocument();
    fireEvent.change(screen.getByLabelText('IPアドレス'), { target: { value: '10.1.2' } });
    fireEvent.click(screen.getByRole('button', { name: '追加' }));
    expect(await screen.findByText('IPアドレスはIPv4の形式でなければなりません。')).toBeInTheDocument();
    fireEvent.change(screen.getByLabelText('IPアドレス'), { target: { value: '' } });
    fireEvent.change(screen.getByLabelText('ドメイン'), { target: { value: 'bad domain' } });
    fireEvent.click(screen.getByRole('button', { name: '追加' }));
    expect(await screen.findByText('ドメインはexample.comの形式でなければなりません。')).toBeInTheDocument();
    fireEvent.change(screen.getByLabelText('ドメイン'), { target: { value: '' } });
    fireEvent.change(screen.getByLabelText('IPアドレス'), { target: { value: '10.1.2.3' } });
    fireEvent.change(screen.getByLabelText('対象アクター'), { target: { value: '4' } });
    fireEvent.click(screen.getByRole('button', { name: '追加' }));
    // The SPA's own text for the code, not the server's English.
    expect(
      await screen.findByText(/操作中のあなた自身がこのアクセス元から利用できなくなるため/),
    ).toBeInTheDocument();
    expect(screen.queryByText('You would lock yourself out.')).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: '選択した制限を削除' }));
    expect(await screen.findByText('一つ以上の要素を選択してください。')).toBeInTheDocument();
  });
});

describe('server validation next to its field (result.field)', () => {
  it('shows an access-limit server message under the named field', async () => {
    server.use(
      ok('access_limit/select_access_limit', { list: [] }, 'get'),
      http.post('*/api/v1/access_limit/insert_access_limit.php', () =>
        HttpResponse.json(
          {
            status: 400,
            message: 'サーバーが拒否したドメイン',
            result: { field: 'domain' },
            code: 'validation',
          },
          { status: 400 },
        ),
      ),
    );
    renderWithProviders(<AccessLimitPage />, { actor: 4 });
    fireEvent.change(screen.getByLabelText('ドメイン'), { target: { value: 'example.com' } });
    fireEvent.change(screen.getByLabelText('対象アクター'), { target: { value: '3' } });
    fireEvent.click(screen.getByRole('button', { name: '追加' }));
    // A known code ('validation'): the SPA's own text under the field the server named.
    expect(await screen.findByText('入力内容に誤りがあります。')).toHaveAttribute('id', 'al-domain-error');
    expect(screen.queryByText('サーバーが拒否したドメイン')).toBeNull();
    expect(screen.getByLabelText('ドメイン')).toHaveAttribute('aria-invalid', 'true');
  });

  it('shows a short-URL server message under the url key field', async () => {
    server.use(
      http.post('*/api/v1/shorten_url/insert.php', () =>
        HttpResponse.json(
          {
            status: 400,
            message: 'URLキーが不正です（サーバー）',
            result: { field: 'url_key' },
            // A code this SPA does not know yet: the server's own message is shown.
            code: 'url_key_reserved',
          },
          { status: 400 },
        ),
      ),
    );
    renderWithProviders(<CreateShorturlPage />, { actor: 4 });
    fireEvent.change(screen.getByLabelText('URLキー'), { target: { value: 'abc' } });
    fireEvent.click(screen.getByRole('button', { name: '登録' }));
    expect(await screen.findByText('URLキーが不正です（サーバー）')).toHaveAttribute(
      'id',
      'su-url-key-error',
    );
  });
});

describe('/logins', () => {
  it('shows the empty message, and forces a logout after confirmation', async () => {
    let posted: unknown = null;
    server.use(
      http.get('*/api/v1/logins.php', ({ request }) => {
        const kind = new URL(request.url).searchParams.get('actor_kind');
        const list =
          kind === '1'
            ? []
            : [
                {
                  exam_user_id: 9,
                  login_id: 'checker01',
                  ex_login_id: null,
                  group_id: null,
                  group: null,
                  actor: 2,
                  target: 'x',
                  is_mc_startup: 0,
                  status: 1,
                  kicked: 0,
                  rejected: 0,
                  updated_at: '2024-01-01 00:00:00',
                },
              ];
        return HttpResponse.json({
          status: 200,
          message: 'OK',
          result: { count: list.length, page_count: 1, page: 1, list },
        });
      }),
      http.post('*/api/v1/logins/force_logout.php', async ({ request }) => {
        posted = await request.json();
        return HttpResponse.json({ status: 200, message: 'OK', result: { user_id: 9, revoked: 1 } });
      }),
    );
    renderWithProviders(withModals(<LoginsPage />), { actor: 4 });
    expect(await screen.findByText('ログイン中のユーザーはいません。')).toBeInTheDocument();
    fireEvent.change(screen.getByLabelText('アクター種別'), { target: { value: '-1' } });
    fireEvent.click(await screen.findByRole('button', { name: 'checker01を強制ログアウト' }));
    fireEvent.click(await screen.findByRole('button', { name: 'OK' }));
    await waitFor(() => expect(posted).toEqual({ user_id: 9 }));
  });
});

describe('/delete-setting', () => {
  const rows = [
    { id: 1, group_id: -1, group: null, group_code: null, duration: 365, updated_at: '2024-01-01 00:00:00' },
  ];
  it('updates a row with the success message, and shows the failure message', async () => {
    let fail = false;
    server.use(
      ok('cleaner/setting_index', { list: rows }, 'get'),
      http.post('*/api/v1/cleaner/setting_update.php', () =>
        fail
          ? HttpResponse.json({ status: 500, message: 'x' }, { status: 500 })
          : HttpResponse.json({ status: 200, message: 'OK', result: rows[0] }),
      ),
    );
    renderWithProviders(withModals(<DeleteSettingPage />), { actor: 4 });
    fireEvent.click(await screen.findByRole('button', { name: 'システムログを更新' }));
    const dialog = await screen.findByRole('dialog');
    expect(document.getElementById('delete-setting-edit')).not.toBeNull();
    fireEvent.change(within(dialog).getByLabelText('保存期間（日）'), { target: { value: '0' } });
    fireEvent.click(within(dialog).getByRole('button', { name: '保存' }));
    expect(
      await screen.findByText('保存期間は1〜36500日の範囲の整数で入力してください。'),
    ).toBeInTheDocument();
    fireEvent.change(within(dialog).getByLabelText('保存期間（日）'), { target: { value: '30' } });
    fireEvent.click(within(dialog).getByRole('button', { name: '保存' }));
    expect(await screen.findByText('保存期間を更新しました。')).toBeInTheDocument();
    fireEvent.click(
      within(document.getElementById('global-alert')!).getAllByRole('button', { name: '閉じる' }).at(-1)!,
    );
    fail = true;
    fireEvent.click(await screen.findByRole('button', { name: 'システムログを更新' }));
    fireEvent.click(within(await screen.findByRole('dialog')).getByRole('button', { name: '保存' }));
    expect((await screen.findAllByText('保存期間の更新に失敗しました。')).length).toBeGreaterThan(0);
  });
});

describe('short URLs', () => {
  it('applies every spec §5 rule', () => {
    const f = emptyShortUrlForm();
    f.urlKey = 'ok-key';
    f.target = 'example.com/';
    Object.assign(f.param, {
      max_rectime: '1a',
      ai_namematch: '101',
      capture_interval: '3601',
      memo: 'x'.repeat(501),
      term_set_code: 'x'.repeat(31),
      exam_url: 'https://x.example',
      is_mc_startup: '1',
      mode: '1',
      is_ai_auth: '1',
    });
    const e = validateShortUrl(f);
    expect(e.target?.key).toBe('validation:targetSlash');
    expect(e.max_rectime?.key).toBe('validation:numeric');
    expect(e.ai_namematch).toMatchObject({ key: 'validation:range', values: { min: 1, max: 100 } });
    expect(e.capture_interval).toMatchObject({ key: 'validation:range', values: { min: 0, max: 3600 } });
    expect(e.memo?.key).toBe('validation:memo');
    expect(e.term_set_code?.key).toBe('validation:notes');
    expect(e.exam_url?.key).toBe('validation:examUrlMcOnly');
    expect(e.mode?.key).toBe('validation:modeNotTester');
    expect(e.ai_idcard_type?.key).toBe('validation:selectOne');
    f.target = 'not a host';
    f.param.is_mc_startup = '0';
    f.param.exam_url = 'ftp://x';
    expect(validateShortUrl(f).target?.key).toBe('validation:targetFqdn');
    expect(validateShortUrl(f).exam_url?.key).toBe('validation:examUrl');
  });

  it('keeps the wider view to examinee URLs and the screen off mobile sittings', () => {
    const f = emptyShortUrlForm();
    f.urlKey = 'wide';
    Object.assign(f.param, {
      is_screen_record: '1',
      is_room_scan: '1',
      is_phone_camera: '1',
      is_mobile: '1',
    });
    expect(validateShortUrl(f).is_screen_record?.key).toBe('validation:screenNotMobile');
    expect(validateShortUrl(f).is_room_scan).toBeUndefined();
    f.param.is_mobile = '0';
    expect(validateShortUrl(f)).toEqual({});
    f.actor = '2';
    const e = validateShortUrl(f);
    for (const name of ['is_screen_record', 'is_room_scan', 'is_phone_camera'])
      expect(e[name]?.key).toBe('validation:widerViewTesterOnly');
  });

  it('shows messages in the form and the working URL after saving', async () => {
    server.use(
      ok('shorten_url/insert', {
        id: 1,
        actor: 1,
        target: '',
        url_key: 'abc',
        url: 'http://localhost/s/abc',
        param: {},
        created_at: '',
        updated_at: '',
      }),
    );
    renderWithProviders(<CreateShorturlPage />, { actor: 4 });
    fireEvent.change(screen.getByLabelText('URLキー'), { target: { value: 'abc' } });
    fireEvent.change(screen.getByLabelText('氏名一致許容度'), { target: { value: '0' } });
    fireEvent.click(screen.getByRole('button', { name: '登録' }));
    expect(await screen.findByText('氏名一致許容度は1〜100の範囲で入力してください。')).toBeInTheDocument();
    fireEvent.change(screen.getByLabelText('氏名一致許容度'), { target: { value: '50' } });
    fireEvent.click(screen.getByRole('button', { name: '登録' }));
    expect(await screen.findByTestId('saved-short-url')).toHaveAttribute('href', 'http://localhost/s/abc');
  });
});

describe('/analysis-request', () => {
  it('warns when no examinee is selected and says when the history cannot be read', async () => {
    server.use(
      ok('analysis_request/initial_param', { domain: 'localhost', env: 'demo' }, 'get'),
      http.get('*/api/v1/analysis_request/index.php', () =>
        HttpResponse.json({ status: 404, message: 'nf' }, { status: 404 }),
      ),
    );
    renderWithProviders(<AnalysisRequestPage />, { actor: 4 });
    expect(screen.getAllByText('受験者が選択されていません。')[0]).toBeInTheDocument();
    expect(screen.getByRole('option', { name: '3分ごとに2秒間隔で10回' })).toBeInTheDocument();
    expect(await screen.findByText('依頼履歴を取得できませんでした。')).toBeInTheDocument();
    expect(screen.getByText('nf')).toBeInTheDocument();
  });

  it('waits to read the history while the initial domain or env is missing (spec §5)', async () => {
    let envReady = false;
    let initialCalls = 0;
    let indexCalls = 0;
    server.use(
      http.get('*/api/v1/analysis_request/initial_param.php', () => {
        initialCalls += 1;
        return HttpResponse.json({
          status: 200,
          message: 'OK',
          result: { domain: 'localhost', env: envReady ? 'demo' : '' },
        });
      }),
      http.get('*/api/v1/analysis_request/index.php', () => {
        indexCalls += 1;
        return HttpResponse.json({ status: 200, message: 'OK', result: { analysis_requests: [] } });
      }),
    );
    renderWithProviders(<AnalysisRequestPage />, { actor: 4 });
    // The page load and the postponed history read each asked for the initial parameters: no history yet.
    await waitFor(() => expect(initialCalls).toBe(2));
    expect(indexCalls).toBe(0);
    envReady = true;
    fireEvent.click(screen.getByRole('button', { name: '最新の状態に更新' }));
    await waitFor(() => expect(indexCalls).toBe(1));
    expect(initialCalls).toBe(3);
  });

  it('shows each request with its method, status and progress, sorts, and refreshes while one runs', async () => {
    const row = (over: Record<string, unknown>) => ({
      id: 1,
      inseq: 'REQ-1',
      status: 'done',
      env: 'demo',
      result: '',
      method: 3,
      created_at: '2026-11-24T01:00:00.000Z',
      updated_at: '2026-11-24T01:05:00.000Z',
      progress: { total: 2, done: 2, failed: 0, percent: 100 },
      ...over,
    });
    const queries: string[] = [];
    let running = true;
    server.use(
      ok('analysis_request/initial_param', { domain: 'localhost', env: 'demo' }, 'get'),
      http.get('*/api/v1/analysis_request/index.php', ({ request }) => {
        queries.push(new URL(request.url).search);
        const list = [
          row({}),
          running
            ? row({
                id: 2,
                inseq: 'REQ-2',
                status: 'running',
                progress: { total: 3, done: 1, failed: 0, percent: 50 },
              })
            : row({
                id: 2,
                inseq: 'REQ-2',
                status: 'error',
                result: '1 recording could not be analysed',
                progress: { total: 3, done: 2, failed: 1, percent: 100 },
              }),
        ];
        return HttpResponse.json({ status: 200, message: '', result: { analysis_requests: list } });
      }),
    );
    vi.useFakeTimers({ shouldAdvanceTime: true });
    try {
      renderWithProviders(<AnalysisRequestPage />, { actor: 4 });
      const second = await screen.findByText('REQ-2');
      const tr = second.closest('tr')!;
      expect(within(tr).getByText('分析中')).toBeInTheDocument();
      expect(within(tr).getByText('5秒ごと')).toBeInTheDocument();
      expect(within(tr).getByText('3件中1件の分析が完了')).toBeInTheDocument();
      expect(within(tr).getByRole('progressbar', { name: '依頼番号REQ-2の進捗' })).toHaveAttribute(
        'aria-valuenow',
        '50',
      );
      expect(queries[0]).toBe('?sort_key=created_at&sort_order=0');
      expect(
        screen.getByText('分析中の依頼があるため、10秒ごとに自動で更新しています。'),
      ).toBeInTheDocument();

      // While a request runs, the history is read again without any click.
      running = false;
      await vi.advanceTimersByTimeAsync(HISTORY_REFRESH_MS);
      const done = await screen.findByText('エラーあり');
      const doneRow = done.closest('tr')!;
      expect(within(doneRow).getByText('3件中2件の分析が完了 （1件失敗）')).toBeInTheDocument();
      expect(within(doneRow).getByText('1 recording could not be analysed')).toBeInTheDocument();
      // Nothing runs any more: no further reads.
      const reads = queries.length;
      await vi.advanceTimersByTimeAsync(3 * HISTORY_REFRESH_MS);
      expect(queries.length).toBe(reads);

      // Sorting by request number asks the server in that order and marks the column.
      fireEvent.click(screen.getByRole('button', { name: /依頼番号/ }));
      await waitFor(() => expect(queries.at(-1)).toBe('?sort_key=inseq&sort_order=0'));
      expect(screen.getByRole('columnheader', { name: /依頼番号/ })).toHaveAttribute(
        'aria-sort',
        'descending',
      );
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('other pages', () => {
  it('/checkers/monitoring lists unassigned and kicked examinees', async () => {
    const tester = {
      id: 5,
      test_id: 1,
      monitor_id: null,
      login_id: 'tester05',
      ex_login_id: null,
      is_mc_startup: 0,
      target: '',
      exam_name: 'A',
      status: 0,
      rejected: 0,
      kicked: 1,
      exam_url: '',
      startup_parameters: { is_auth: 1, is_proctor: 1, is_record: 1, is_summary: 0, memo: '' },
      matching_status: 0,
      on_hold: 1,
    };
    server.use(
      ok('checkers/monitoring', { matchings: [], not_matchings: [], kicked_users: [tester] }, 'get'),
    );
    renderWithProviders(<CheckersMonitoringPage />, { actor: 4 });
    expect(await screen.findByRole('button', { name: 'tester05を解除' })).toBeEnabled();
    expect(screen.getByText('マッチング中の監視者はいません。')).toBeInTheDocument();
  });
});
