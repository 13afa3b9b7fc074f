import { describe, expect, it, vi } from 'vitest';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { renderWithProviders } from '../../../tests/render';
import { ok, server } from '../../../tests/msw/server';
import { ModalHost } from '../../features/layout/components/modal-host';
import ExamineesPage from './examinees-page';
import ExamineeDetailPage from './examinee-detail-page';
import { Route, Routes } from 'react-router-dom';
import { selectExaminees } from '@/features/examinees/examinees-slice';

const CONDITIONS = {
  groups: [{ id: 1, code: 'G1', name: 'Group 1' }],
  test_names: ['T1'],
  regions: ['R1'],
  records: [],
  with_marks: [],
  marks: [{ id: 1, message: 'looked away', label: 'L' }],
  cheating_level: [0, 1],
  ai_analysis_flag: [
    { value: 0, label: '未実施' },
    { value: 1, label: '実施済' },
  ],
  times: ['00:00', '09:00'],
};
const ROW = {
  test_id: 7,
  group: 'Group 1',
  group_id: 1,
  test_name: 'T1',
  region: 'R1',
  test_at: '2024-01-01 09:00:00',
  stop_at: null,
  exam_name: '山田',
  with_mark: 1,
  record: 0,
  user_id: 3,
  login_id: 'tester10',
  cheating_level: 0,
  total_score: 5,
  pass: null,
};
const page = (testers: unknown[]) => ({
  count: testers.length,
  count_capped: false,
  page_count: 1,
  page: 1,
  max_display_count: 50,
  testers,
});

function renderSearch(lang: 'ja' | 'en' = 'ja') {
  server.use(ok('testers/conditions', CONDITIONS, 'get'));
  return renderWithProviders(
    <>
      <ExamineesPage />
      <ModalHost />
    </>,
    { actor: 4, lang },
  );
}

describe('/examinees search', () => {
  it('rejects group and group code together with the spec message', async () => {
    renderSearch();
    await screen.findByRole('option', { name: 'Group 1 (G1)' });
    fireEvent.change(screen.getByLabelText('試験団体'), { target: { value: '1' } });
    fireEvent.change(screen.getByLabelText('試験団体コード'), { target: { value: 'G1' } });
    fireEvent.click(screen.getByRole('button', { name: '検索' }));
    const input = screen.getByLabelText('試験団体コード');
    expect(await screen.findByText('試験団体と試験団体コードのいずれかを入力してください。')).toHaveAttribute(
      'id',
      'search-group-text-error',
    );
    expect(input).toHaveAttribute('aria-describedby', 'search-group-text-error');
  });

  it('rejects a time without its date and a year above 9999 (en too)', async () => {
    renderSearch('en');
    await screen.findAllByRole('option', { name: '09:00' });
    fireEvent.change(screen.getByLabelText('Time (from)'), { target: { value: '09:00' } });
    fireEvent.click(screen.getByRole('button', { name: 'Search' }));
    expect(
      await screen.findByText('The test date and time contain a combination that cannot be specified.'),
    ).toBeInTheDocument();
  });

  it('shows rows, sorts with aria-sort, selects all, and the empty message', async () => {
    let last: URLSearchParams | null = null;
    server.use(
      http.get('*/api/v1/testers.php', ({ request }) => {
        last = new URL(request.url).searchParams;
        const rows = last.get('login_id') === 'none' ? [] : [ROW];
        return HttpResponse.json({ status: 200, message: 'OK', result: page(rows) });
      }),
    );
    const { store } = renderSearch();
    fireEvent.click(screen.getByRole('button', { name: '検索' }));
    const table = await screen.findByRole('table', { name: '受験者の検索結果' });
    expect(within(table).getByRole('link', { name: '山田' })).toHaveAttribute('href', '/examinees/7');
    const header = within(table).getByRole('columnheader', { name: /試験日時/ });
    expect(header).toHaveAttribute('aria-sort', 'descending');
    fireEvent.click(within(table).getByRole('button', { name: /スコア/ }));
    await waitFor(() => expect(last?.get('sort_key')).toBe('7'));
    fireEvent.click(screen.getByLabelText('このページの受験者をすべて選択'));
    expect(selectExaminees(store.getState()).selectedTestIds).toEqual([7]);
    fireEvent.change(screen.getByLabelText('ログインID'), { target: { value: 'none' } });
    fireEvent.click(screen.getByRole('button', { name: '検索' }));
    expect(await screen.findByText('該当する受験者がいません。')).toBeInTheDocument();
  });

  it('shows the search failure', async () => {
    server.use(
      http.get('*/api/v1/testers.php', () =>
        HttpResponse.json({ status: 500, message: 'x' }, { status: 500 }),
      ),
    );
    renderSearch();
    fireEvent.click(screen.getByRole('button', { name: '検索' }));
    expect(await screen.findByText('受験者の検索に失敗しました。')).toBeInTheDocument();
  });
});

describe('/examinees CSV (spec §8)', () => {
  async function searched() {
    server.use(ok('testers', page([ROW]), 'get'));
    const r = renderSearch();
    fireEvent.change(screen.getByLabelText('ログインID'), { target: { value: 'tester10' } });
    fireEvent.click(screen.getByRole('button', { name: '検索' }));
    await screen.findByRole('table');
    return r;
  }

  it('refuses a download without conditions', async () => {
    server.use(ok('testers', page([ROW]), 'get'));
    renderSearch();
    fireEvent.click(screen.getByRole('button', { name: '検索' }));
    fireEvent.click(await screen.findByRole('button', { name: 'CSVダウンロード' }));
    expect(await screen.findByText(/ダウンロードする検索条件が指定されていません/)).toBeInTheDocument();
  });

  it('shows the message of a JSON error body', async () => {
    server.use(
      http.get('*/api/v1/downloadExamUserList.php', () =>
        HttpResponse.json({ status: 400, message: 'サーバーのメッセージ' }, { status: 400 }),
      ),
    );
    await searched();
    fireEvent.click(screen.getByRole('button', { name: 'CSVダウンロード' }));
    expect(await screen.findByText('サーバーのメッセージ')).toBeInTheDocument();
  });

  it('turns an unparsable error body into the parse-failure message', async () => {
    server.use(
      http.get('*/api/v1/downloadExamUserList.php', () => new HttpResponse('<html>', { status: 502 })),
    );
    const { store } = await searched();
    fireEvent.click(screen.getByRole('button', { name: 'CSVダウンロード' }));
    expect(await screen.findByText('レスポンスデータの解析に失敗しました。')).toBeInTheDocument();
    expect(Object.values(store.getState().errors.byEndpoint)[0]?.status).toBe(500);
  });

  it('saves the CSV under the server file name', async () => {
    const create = vi.fn(() => 'blob:x');
    URL.createObjectURL = create;
    URL.revokeObjectURL = vi.fn();
    const click = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(() => undefined);
    server.use(
      http.get(
        '*/api/v1/downloadExamUserList.php',
        () =>
          new HttpResponse('\uFEFF受験ID\n1\n', {
            headers: {
              'Content-Disposition': 'attachment; filename="exam_user_resultinfo_csv_20240101000000.csv"',
              'X-Total-Rows': '1',
            },
          }),
      ),
    );
    const { store } = await searched();
    fireEvent.click(screen.getByRole('button', { name: 'CSVダウンロード' }));
    await waitFor(() => expect(selectExaminees(store.getState()).csv.status).toBe('succeeded'));
    expect(selectExaminees(store.getState()).csv.totalRows).toBe(1);
    expect(click).toHaveBeenCalled();
    expect((click.mock.contexts[0] as HTMLAnchorElement).download).toBe(
      'exam_user_resultinfo_csv_20240101000000.csv',
    );
    click.mockRestore();
  });
});

const DETAIL = {
  user_id: 3,
  test_id: 7,
  tester_id: 3,
  login_id: 'tester10',
  ex_login_id: null,
  name: '山田',
  group_id: 1,
  group: 'Group 1',
  group_code: 'G1',
  test_name: 'T1',
  region: 'R1',
  test_at: '2024-01-01T09:00:00.000+09:00',
  stop_at: '2024-01-01T10:00:00.000+09:00',
  exam_name: '山田',
  status: 7,
  cheating_level: 2,
  test_status: null,
  exam_process: null,
  is_mc_startup: 0,
  matched_at: null,
  authenticated_at: null,
  login_at: '2024-01-01T08:59:00.000+09:00',
  logout_at: null,
  ai_namematch: null,
  rejected: 0,
  kicked: 0,
  startup_parameters: { is_proctor: 1, memo: 'メモです' },
  head_shot_uri: null,
  id_card_uri: null,
  marking_summaries: [{ mark: 1, message: 'looked away', label: 'L', count: 1 }],
  marking_total_score: 5,
  markings: [
    {
      id: 1,
      marking_at: '2024-01-01T00:30:00.000Z',
      url: null,
      mark: 1,
      message: 'looked away',
      label: 'L',
      score: 5,
      record_id: null,
    },
  ],
  ai_marking_summaries: [],
  ai_marking_total_score: 0,
  ai_markings: [],
  records: [],
  messages: [],
  testers: [],
  examinee_logs: [
    { event: 'login', detail: '', created_at: '2024-01-01T08:59:00.000+09:00' },
    { event: 'exam_start', detail: 'by tester', created_at: '2024-01-01T09:00:00.000+09:00' },
  ],
  record_status_logs: [],
};

/** One stored AI identity-check attempt of tester/detail's ai_auth. */
function aiAttempt(id: number, kind: string, outcome: string, reason: string, scores: object) {
  return {
    id,
    kind,
    outcome,
    reason,
    scores,
    image_url: `/api/v1/tester/image.php?key=ai_${kind}/${id}.png`,
    created_at: `2024-01-01T00:0${id}:00.000Z`,
  };
}

/** /examinees/7 for a system manager, with no pass/fail decision stored yet. */
function renderDetailWithoutDecision(lang: 'ja' | 'en' = 'ja') {
  server.use(
    http.get('*/api/v1/test/pass.php', () =>
      HttpResponse.json({ status: 200, message: 'OK', result: { test_id: 7, pass: null } }),
    ),
  );
  renderWithProviders(
    <Routes>
      <Route path="/examinees/:id" element={<ExamineeDetailPage />} />
    </Routes>,
    { actor: 4, route: '/examinees/7', lang },
  );
}

describe('/examinees/{id}', () => {
  it('shows the sitting, the timeline with markings, and sets pass then fail with confirmation', async () => {
    let pass: number | null = null;
    server.use(
      ok('tester/detail', DETAIL, 'get'),
      http.get('*/api/v1/test/pass.php', () =>
        HttpResponse.json({ status: 200, message: 'OK', result: { test_id: 7, pass } }),
      ),
      http.post('*/api/v1/test/pass.php', async ({ request }) => {
        const b = (await request.json()) as { method: string };
        pass = b.method === 'PUT' ? 1 : 0;
        return HttpResponse.json({ status: 200, message: 'OK', result: { test_id: 7, pass } });
      }),
    );
    renderWithProviders(
      <>
        <Routes>
          <Route path="/examinees/:id" element={<ExamineeDetailPage />} />
        </Routes>
        <ModalHost />
      </>,
      { actor: 4, route: '/examinees/7' },
    );
    expect(await screen.findByText('メモです')).toBeInTheDocument();
    const timeline = screen.getByTestId('recording-timeline');
    expect(
      within(timeline).getByRole('button', { name: 'looked away（00:30:00）へ移動' }),
    ).toBeInTheDocument();
    fireEvent.click(screen.getByRole('button', { name: '合格にする' }));
    fireEvent.click(await screen.findByRole('button', { name: 'OK' }));
    expect(await screen.findByText('合否を更新しました。')).toBeInTheDocument();
    expect(screen.getByTestId('pass-value')).toHaveTextContent('合格');
  });

  it('shows the AI identity check: the outcome, each decision with its reason and scores, flagged for review', async () => {
    server.use(
      ok(
        'tester/detail',
        {
          ...DETAIL,
          ai_auth: {
            status: 4,
            face_retry: 2,
            id_card_retry: 0,
            ai_all_retry: 3,
            attempts: [
              aiAttempt(1, 'face', 'rejected', 'too_dark', {
                faces: 1,
                luma: 13,
                sharpness: 35,
                face_score: 0.912,
                face_side: 180,
                yaw: -4.6,
                pitch: 2.2,
              }),
              aiAttempt(2, 'face', 'ok', '', { faces: 1 }),
              aiAttempt(3, 'id_card', 'mismatch', 'face_uncertain', {
                card_faces: 2,
                card_face_side: 64,
                cosine: 0.664,
                match_class: 2,
                live_cosine: 0.81,
                ocr_confidence: 77,
                name_match: 95,
                id_type_read: 2,
              }),
              aiAttempt(4, 'face', 'rejected', 'no_face', { faces: 0, luma: 120, sharpness: 300 }),
            ],
          },
        },
        'get',
      ),
    );
    renderDetailWithoutDecision();
    const section = await screen.findByRole('region', { name: 'AI本人認証' });
    expect(within(section).getByTestId('ai-auth-status')).toHaveTextContent(
      '結果: 最後の写真で続行（管理者の確認待ち）要確認',
    );
    expect(
      within(section).getByText('再撮影の回数：顔写真 2 回、身分証 0 回、全体 3 回'),
    ).toBeInTheDocument();
    const table = within(section).getByRole('table', { name: 'AI本人認証の判定（古い順）' });
    for (const header of ['日時', '判定', '理由', '顔の数', '顔の類似度', '氏名一致率', '写真の品質'])
      expect(within(table).getByRole('columnheader', { name: header })).toBeInTheDocument();
    const rows = within(table).getAllByTestId('ai-auth-attempt');
    expect(rows).toHaveLength(4);
    const [dark, accepted, uncertain, last] = rows as [HTMLElement, HTMLElement, HTMLElement, HTMLElement];
    expect(within(dark).getByText('顔を認識できない')).toBeInTheDocument();
    expect(within(dark).getByText('暗すぎる')).toBeInTheDocument();
    // The quality figures the face gate looked at.
    for (const figure of ['鮮明さ 35', '明るさ 13/255', '顔検出スコア 0.91', '顔の大きさ 180 px'])
      expect(within(dark).getByText(figure)).toBeInTheDocument();
    expect(within(dark).getByText('顔の向き：左右 5°、上下 2°')).toBeInTheDocument();
    expect(within(accepted).getByText('合格')).toBeInTheDocument();
    expect(within(accepted).queryByText('要確認')).toBeNull();
    expect(accepted).not.toHaveClass('table-warning');
    // An uncertain match is marked in words, not colour only.
    expect(uncertain).toHaveClass('table-warning');
    expect(within(uncertain).getByText('要確認')).toBeInTheDocument();
    expect(within(uncertain).getByText('類似度が判定保留の範囲')).toBeInTheDocument();
    expect(within(uncertain).getByText('0.66 (判定保留)')).toBeInTheDocument();
    expect(within(uncertain).getByText('身分証を持つ人物：0.81')).toBeInTheDocument();
    expect(within(uncertain).getByText('2')).toBeInTheDocument();
    expect(within(uncertain).getByText('95')).toBeInTheDocument();
    expect(within(uncertain).getByText('パスポート')).toBeInTheDocument();
    expect(within(uncertain).getByText('身分証の顔写真 64 px')).toBeInTheDocument();
    expect(within(uncertain).getByText('文字認識の信頼度 77')).toBeInTheDocument();
    expect(within(uncertain).getByRole('link', { name: '身分証を開く' })).toHaveAttribute(
      'href',
      '/api/v1/tester/image.php?key=ai_id_card/3.png',
    );
    expect(within(uncertain).queryByTestId('ai-auth-fallback')).toBeNull();
    // The photo the examinee continued with: marked for review, and says so.
    expect(last).toHaveClass('table-warning');
    expect(within(last).getByText('要確認')).toBeInTheDocument();
    expect(within(last).getByTestId('ai-auth-fallback')).toHaveTextContent(
      'この写真で受験を続行（管理者の確認待ち）',
    );
    expect(within(table).getAllByTestId('ai-auth-fallback')).toHaveLength(1);
  });

  it('says which decision led to a forced logout, in English too, without asking for a review', async () => {
    server.use(
      ok(
        'tester/detail',
        {
          ...DETAIL,
          ai_auth: {
            status: 3,
            face_retry: 1,
            id_card_retry: 0,
            ai_all_retry: 1,
            attempts: [aiAttempt(1, 'face', 'rejected', 'blurred', { faces: 1, sharpness: 8, luma: 90 })],
          },
        },
        'get',
      ),
    );
    renderDetailWithoutDecision('en');
    const section = await screen.findByRole('region', { name: 'AI identity check' });
    expect(within(section).getByTestId('ai-auth-status')).toHaveTextContent('Result: Forced logout');
    expect(within(section).queryByText('Needs review')).toBeNull();
    const table = within(section).getByRole('table', { name: 'AI identity-check decisions (oldest first)' });
    const [row] = within(table).getAllByTestId('ai-auth-attempt') as [HTMLElement];
    expect(row).not.toHaveClass('table-warning');
    expect(within(row).getByText('Face not recognised')).toBeInTheDocument();
    expect(within(row).getByText('Blurred')).toBeInTheDocument();
    expect(within(row).getByText('Sharpness 8')).toBeInTheDocument();
    expect(within(row).getByText('Brightness 90/255')).toBeInTheDocument();
    expect(within(row).getByTestId('ai-auth-fallback')).toHaveTextContent(
      'This decision led to the forced logout',
    );
  });

  it('says which recordings hold no video, asks no playback for them, and sums the recorded time', async () => {
    const asked: string[] = [];
    const record = (id: number, start: string, stop: string, size: number, durationMs: number | null) => ({
      id,
      start_at: start,
      stop_at: stop,
      encoded_at: null,
      ai_analysis_batch_reflected_at: null,
      ai_analysis_reflected_at: null,
      ai_analysis_batch_flag: 0,
      ai_analysis_flag: 0,
      movie_status: size === 0 ? '08' : '02',
      detail: size === 0 ? 'No recorded data reached the storage before the sitting ended.' : '',
      play_time_from: null,
      play_time_to: null,
      size,
      duration_ms: durationMs,
    });
    server.use(
      ok(
        'tester/detail',
        {
          ...DETAIL,
          records: [
            record(41, '2024-01-01T09:00:00.000+09:00', '2024-01-01T09:12:43.000+09:00', 0, null),
            record(42, '2024-01-01T09:13:00.000+09:00', '2024-01-01T09:40:00.000+09:00', 900_000, 1_500_000),
          ],
        },
        'get',
      ),
      http.get('*/api/v1/get_onetime_uri.php', ({ request }) => {
        const id = new URL(request.url).searchParams.get('record_id') ?? '';
        asked.push(id);
        return HttpResponse.json({
          status: 200,
          message: 'OK',
          result: { id: Number(id), url: `/rec/${id}.webm`, expires_in: 300, mime_type: 'video/webm' },
        });
      }),
    );
    renderDetailWithoutDecision();
    const empty = await screen.findByTestId('recording-empty');
    expect(empty).toHaveTextContent('この録画には映像データが届いていません');
    expect(empty).toHaveTextContent('2024-01-01 09:00:00');
    expect(empty).toHaveTextContent('2024-01-01 09:12:43');
    expect(within(empty).queryByRole('button')).toBeNull();
    // 25 minutes of video in an exam from its first camera recording at 09:00 (the login was at 08:59) to 10:00.
    expect(screen.getByTestId('recorded-summary')).toHaveTextContent(
      '録画された時間の合計：00:25:00（試験開始から終了までの 01:00:00 のうち）',
    );
    await waitFor(() => expect(asked).toEqual(['42']));
    expect(screen.getAllByTestId('recording-timeline')).toHaveLength(1);
  });

  it('plays the camera and the screen side by side, room scans below, with the marking on each timeline', async () => {
    const record = (id: number, stream: string, start: string, stop: string) => ({
      id,
      stream,
      start_at: start,
      stop_at: stop,
      encoded_at: null,
      ai_analysis_batch_reflected_at: null,
      ai_analysis_reflected_at: null,
      ai_analysis_batch_flag: 0,
      ai_analysis_flag: 0,
      movie_status: '02',
      detail: '',
      play_time_from: null,
      play_time_to: null,
      size: 1000,
      duration_ms: null,
    });
    server.use(
      ok(
        'tester/detail',
        {
          ...DETAIL,
          // The marking (09:30 JST) points into camera recording 41, 20 minutes in.
          markings: [{ ...DETAIL.markings[0]!, record_id: 41, play_time_from: 1200, play_time_to: 1200 }],
          records: [
            record(40, 'room_scan', '2024-01-01T09:05:00.000+09:00', '2024-01-01T09:06:00.000+09:00'),
            record(41, 'camera', '2024-01-01T09:10:00.000+09:00', '2024-01-01T09:50:00.000+09:00'),
            record(42, 'screen', '2024-01-01T09:08:00.000+09:00', '2024-01-01T09:50:00.000+09:00'),
          ],
        },
        'get',
      ),
      http.get('*/api/v1/get_onetime_uri.php', ({ request }) => {
        const id = new URL(request.url).searchParams.get('record_id') ?? '';
        return HttpResponse.json({
          status: 200,
          message: 'OK',
          result: { id: Number(id), url: `/rec/${id}.webm`, expires_in: 300, mime_type: 'video/webm' },
        });
      }),
    );
    renderDetailWithoutDecision();
    const camera = await screen.findByRole('region', { name: 'カメラ' });
    const shared = screen.getByRole('region', { name: '画面' });
    const scans = screen.getByRole('region', { name: 'ルームスキャン' });
    expect(camera).toHaveClass('col-xl-6');
    expect(shared).toHaveClass('col-xl-6');
    await waitFor(() => expect(camera.querySelector('video')).toHaveAttribute('src', '/rec/41.webm'));
    await waitFor(() => expect(shared.querySelector('video')).toHaveAttribute('src', '/rec/42.webm'));
    await waitFor(() => expect(scans.querySelector('video')).toHaveAttribute('src', '/rec/40.webm'));
    // The camera at the server's position (20 min); the screen at the time since it began (22 min).
    expect(within(camera).getByRole('button', { name: 'looked away（00:20:00）へ移動' })).toBeInTheDocument();
    expect(within(shared).getByRole('button', { name: 'looked away（00:22:00）へ移動' })).toBeInTheDocument();
    expect(within(scans).queryByRole('button', { name: /looked away/ })).toBeNull();
    // The recording log names each recording's stream.
    const log = screen.getByRole('table', { name: '録画状況ログ' });
    expect(within(log).getByRole('row', { name: /^42 画面/ })).toBeInTheDocument();
  });

  it('marks the recordings a reload cut off as interrupted, and the interrupted scan in the log (ja and en)', async () => {
    const record = (id: number, stream: string, start: string, stop: string, interrupted: boolean) => ({
      id,
      stream,
      start_at: start,
      stop_at: stop,
      encoded_at: null,
      ai_analysis_batch_reflected_at: null,
      ai_analysis_reflected_at: null,
      ai_analysis_batch_flag: 0,
      ai_analysis_flag: 0,
      movie_status: '02',
      detail: '',
      play_time_from: null,
      play_time_to: null,
      size: 1000,
      duration_ms: null,
      interrupted,
    });
    server.use(
      ok(
        'tester/detail',
        {
          ...DETAIL,
          records: [
            // Completed by the server 40 s after it began; 5 s of video had reached the storage.
            {
              ...record(
                40,
                'room_scan',
                '2024-01-01T09:05:00.000+09:00',
                '2024-01-01T09:05:40.000+09:00',
                true,
              ),
              duration_ms: 5070,
            },
            record(41, 'room_scan', '2024-01-01T09:06:00.000+09:00', '2024-01-01T09:07:00.000+09:00', false),
            record(42, 'camera', '2024-01-01T09:00:00.000+09:00', '2024-01-01T09:50:00.000+09:00', false),
          ],
          examinee_logs: [
            { event: 'room_scan_started', detail: '', created_at: '2024-01-01T09:05:00.000+09:00' },
            {
              event: 'room_scan_interrupted',
              detail: 'restarted',
              created_at: '2024-01-01T09:06:00.000+09:00',
            },
            { event: 'room_scan_started', detail: '', created_at: '2024-01-01T09:06:00.000+09:00' },
          ],
        },
        'get',
      ),
      http.get('*/api/v1/get_onetime_uri.php', ({ request }) => {
        const id = new URL(request.url).searchParams.get('record_id') ?? '';
        return HttpResponse.json({
          status: 200,
          message: 'OK',
          result: { id: Number(id), url: `/rec/${id}.webm`, expires_in: 300, mime_type: 'video/webm' },
        });
      }),
    );
    renderDetailWithoutDecision();
    const scans = await screen.findByRole('region', { name: 'ルームスキャン' });
    expect(within(scans).getByText('録画 1（中断）')).toBeInTheDocument();
    expect(within(scans).getByText('録画 2')).toBeInTheDocument();
    expect(within(scans).getAllByTestId('recording-interrupted')).toHaveLength(1);
    // Its timeline is as long as its video (5 s), not as the time until it was completed (40 s).
    const first = within(scans).getAllByTestId('recording-timeline')[0]!;
    expect(first).toHaveTextContent('00:00:05');
    expect(first).not.toHaveTextContent('00:00:40');
    expect(screen.getByRole('region', { name: 'カメラ' }).textContent).not.toMatch(/中断/);
    const log = screen.getByRole('table', { name: '録画状況ログ' });
    expect(within(log).getByRole('row', { name: /^40 ルームスキャン.*中断/ })).toBeInTheDocument();
    // "Completed" is when the upload was; the video's own length is beside it (unknown yet: a dash).
    expect(within(log).getByRole('columnheader', { name: '完了' })).toBeInTheDocument();
    expect(within(log).getByRole('columnheader', { name: '動画の長さ' })).toBeInTheDocument();
    const row40 = within(log).getByRole('row', { name: /^40 / });
    expect(row40).toHaveTextContent('2024-01-01 09:05:40');
    expect(row40).toHaveTextContent('00:00:05');
    expect(within(log).getByRole('row', { name: /^41 / })).toHaveTextContent('—');
    expect(within(log).getByRole('row', { name: /^41 ルームスキャン/ }).textContent).not.toMatch(/中断/);
    const events = screen.getAllByTestId('examinee-log').map((r) => r.textContent);
    expect(events[1]).toMatch(/ルームスキャンが中断/);
    expect(events[2]).toMatch(/ルームスキャンを開始/);
  });

  it('marks an interrupted recording in English too', async () => {
    server.use(
      ok(
        'tester/detail',
        {
          ...DETAIL,
          records: [
            {
              id: 40,
              stream: 'screen',
              start_at: '2024-01-01T09:05:00.000+09:00',
              stop_at: '2024-01-01T09:05:40.000+09:00',
              encoded_at: null,
              ai_analysis_batch_reflected_at: null,
              ai_analysis_reflected_at: null,
              ai_analysis_batch_flag: 0,
              ai_analysis_flag: 0,
              movie_status: '02',
              detail: '',
              play_time_from: null,
              play_time_to: null,
              size: 1000,
              duration_ms: null,
              interrupted: true,
            },
          ],
          examinee_logs: [
            {
              event: 'room_scan_interrupted',
              detail: 'restarted',
              created_at: '2024-01-01T09:06:00.000+09:00',
            },
          ],
        },
        'get',
      ),
      http.get('*/api/v1/get_onetime_uri.php', () =>
        HttpResponse.json({
          status: 200,
          message: 'OK',
          result: { id: 40, url: '/rec/40.webm', expires_in: 300, mime_type: 'video/webm' },
        }),
      ),
    );
    renderDetailWithoutDecision('en');
    expect(await screen.findByText('Recording 1 (interrupted)')).toBeInTheDocument();
    expect(screen.getByTestId('recording-interrupted')).toHaveTextContent(/reloaded or closed/);
    expect(screen.getByTestId('examinee-log')).toHaveTextContent(/Room scan interrupted/);
  });

  it('has no AI identity section when the detail carries none', async () => {
    server.use(ok('tester/detail', DETAIL, 'get'));
    renderDetailWithoutDecision();
    expect(await screen.findByText('メモです')).toBeInTheDocument();
    expect(screen.queryByRole('region', { name: 'AI本人認証' })).toBeNull();
  });

  it('lists AI flags from live stills, an excused one (connection down) marked as not scored', async () => {
    const still = (id: number, excused: boolean) => ({
      id,
      marking_at: `2024-01-01T09:1${id}:00.000+09:00`,
      url: null,
      mark: 'eye_rot',
      score: 99,
      record_id: null,
      start_ms: 0,
      end_ms: 5000,
      source: 'capture',
      flag: 'no_face',
      confidence: 0.99,
      excused,
      excuse_reason: excused ? 'connection_gap' : null,
    });
    server.use(
      ok(
        'tester/detail',
        {
          ...DETAIL,
          ai_marking_summaries: [{ mark: 'eye_rot', count: 1 }],
          ai_marking_total_score: 99,
          ai_markings: [still(1, false), still(2, true)],
        },
        'get',
      ),
    );
    renderDetailWithoutDecision();
    const items = await screen.findAllByTestId('ai-marking');
    expect(items).toHaveLength(2);
    expect(items[0]).toHaveTextContent('視線 (スコア 99)');
    expect(items[1]).toHaveTextContent('視線 (除外：接続が切れていた間の撮影のため、スコアに含めません)');
    expect(items[1]).not.toHaveTextContent('スコア 99');
  });

  it('shows a load failure', async () => {
    server.use(
      http.get('*/api/v1/tester/detail.php', () =>
        HttpResponse.json({ status: 404, message: 'No such test.' }, { status: 404 }),
      ),
    );
    renderWithProviders(
      <Routes>
        <Route path="/examinees/:id" element={<ExamineeDetailPage />} />
      </Routes>,
      { actor: 4, route: '/examinees/7' },
    );
    expect(await screen.findByText('No such test.')).toBeInTheDocument();
  });
});
