import { describe, expect, it } from 'vitest';
import { screen, within } from '@testing-library/react';
import { Route, Routes } from 'react-router-dom';
import { renderWithProviders } from '../../../tests/render';
import { fail, ok, server } from '../../../tests/msw/server';
import { testerDetail } from '../../../tests/fixtures/tester-detail';
import ExamineeDetailPage from './examinee-detail-page';
import ExamineeReportPage from './examinee-report-page';
import LoginsPage from './logins-page';
import CheckersMonitoringPage from './checkers-monitoring-page';
import ExamEndPage from '../tester/exam-end-page';

// What managers, checkers and examinees see: no raw timestamp, record code, chat marker, settings key or
// English server sentence on a Japanese page (times shown in the deployment zone, Asia/Tokyo by default).

/** An ISO timestamp as text (`2026-11-24T23:19`), a bare chat marker, or a camelCase settings key. */
const RAW_ISO = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/;
const RAW_MARKER =
  /\b(MESSAGE_RECEIVED|KICK_OUT|BEFORE_CLOSE(_OK)?|AUTHENTICATING|ACCEPTED|REJECTED|MARKING_ALERT)\b/;
const RAW_KEY = /\b(is|ai|max|webrtc|video|voice|selected)[A-Z][A-Za-z]+\b/;
const SERVER_ENGLISH = /You may not see this tester|No such sitting|not matched/;

function expectReadable(root: HTMLElement) {
  const text = root.textContent ?? '';
  expect(text).not.toMatch(RAW_ISO);
  expect(text).not.toMatch(RAW_MARKER);
  expect(text).not.toMatch(RAW_KEY);
  expect(text).not.toMatch(SERVER_ENGLISH);
  // No table cell holds a bare record status code (00–08).
  for (const cell of root.querySelectorAll('td')) expect(cell.textContent?.trim()).not.toMatch(/^0[0-8]$/);
}

const DETAIL = testerDetail({
  test_id: 7,
  exam_name: '山田 花子',
  login_id: 'tester10',
  status: 7,
  cheating_level: 3,
  test_at: '2026-11-24T23:19:42.435Z',
  stop_at: '2026-11-25T09:30:00.000+09:00',
  login_at: '2026-11-25T08:19:00.000+09:00',
  startup_parameters: {
    is_proctor: 1,
    is_record: 1,
    is_ai_auth: 1,
    selected_analysis_types: 'eye_rot,voice',
    lang: 'ja',
    memo: '',
  },
  markings: [
    {
      id: 1,
      marking_at: '2026-11-25T00:00:05.000Z',
      url: null,
      mark: 7,
      message: '本人不一致',
      label: 'PERSONALITY_MISMATCH',
      score: 10,
      record_id: 3,
      play_time_from: 65,
      play_time_to: 65,
    },
  ],
  marking_summaries: [{ mark: 7, message: '本人不一致', label: 'PERSONALITY_MISMATCH', count: 1 }],
  marking_total_score: 10,
  records: [
    {
      id: 3,
      start_at: '2026-11-24T23:59:00.000Z',
      stop_at: '2026-11-25T00:20:00.000Z',
      encoded_at: '2026-11-25T00:21:00.000Z',
      ai_analysis_batch_reflected_at: null,
      ai_analysis_reflected_at: null,
      ai_analysis_batch_flag: 0,
      ai_analysis_flag: 0,
      movie_status: '02',
      detail: 'converted',
      play_time_from: 0,
      play_time_to: 1260,
    },
  ],
  messages: [
    {
      id: 2,
      send_type: 0,
      message_type: 3,
      kind: 'command',
      message: 'MARKING_ALERT:本人不一致',
      created_at: '2026-11-25T00:00:06.000Z',
    },
    {
      id: 1,
      send_type: 0,
      message_type: 2,
      kind: 'command',
      message: 'ACCEPTED',
      created_at: '2026-11-24T23:58:00.000Z',
    },
  ],
  examinee_logs: [
    { event: 'login', detail: '', created_at: '2026-11-24T23:19:00.000Z' },
    { event: 'authenticated', detail: 'by checker checker01', created_at: '2026-11-24T23:58:00.000Z' },
    { event: 'exam_start', detail: 'by tester', created_at: '2026-11-24T23:59:00.000Z' },
    { event: 'exam_end', detail: 'by tester', created_at: '2026-11-25T00:20:00.000Z' },
  ],
  record_status_logs: [
    { record_id: 3, movie_status: '00', detail: 'recording started', created_at: '2026-11-24T23:59:00.000Z' },
    { record_id: 3, movie_status: '02', detail: 'converted', created_at: '2026-11-25T00:21:00.000Z' },
  ],
});

function renderDetail(actor: 2 | 4, path = '/examinees/7') {
  server.use(
    ok('tester/detail', DETAIL, 'get'),
    ok('test/pass', { test_id: 7, pass: 1 }, 'get'),
    ok('get_onetime_uri', { id: 3, url: '/video/3.webm' }, 'get'),
  );
  return renderWithProviders(
    <Routes>
      <Route path="/examinees/:id" element={<ExamineeDetailPage />} />
      <Route path="/examinees/:id/report" element={<ExamineeReportPage />} />
    </Routes>,
    { actor, route: path },
  );
}

describe('no page shows a raw time, code, marker or English server text in Japanese', () => {
  it('examinee detail: times in Tokyo, states and codes by name, markers as sentences, settings labelled', async () => {
    const { container } = renderDetail(4);
    await screen.findByText('山田 花子');
    // 2026-11-24T23:19:42.435Z is 08:19:42 on the 25th in Tokyo, the wall clock the search list and CSV show.
    expect(screen.getByText('2026-11-25 08:19:42')).toBeInTheDocument();
    expect(screen.getByText('受験終了')).toBeInTheDocument();
    expect(screen.getByText('高')).toBeInTheDocument();
    const log = within(screen.getByRole('table', { name: '受験者ログ' }));
    expect(log.getByText('本人確認完了')).toBeInTheDocument();
    expect(log.getByText('2026-11-25 08:58:00')).toBeInTheDocument();
    expect(screen.getAllByText('変換完了').length).toBeGreaterThan(0);
    expect(screen.getByText('未変換')).toBeInTheDocument();
    expect(screen.getByText('監視者が本人確認を承認しました。')).toBeInTheDocument();
    expect(screen.getByText('監視者が受験者に注意を通知しました：本人不一致')).toBeInTheDocument();
    expect(screen.getByText('監視利用')).toBeInTheDocument();
    expect(screen.getByText('視線、音声')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: '合格にする' })).toBeInTheDocument();
    expectReadable(container);
  });

  it('a checker sees the detail it monitored without the pass/fail control', async () => {
    const { container } = renderDetail(2);
    await screen.findByText('山田 花子');
    expect(screen.queryByRole('button', { name: '合格にする' })).toBeNull();
    expect(screen.queryByRole('heading', { name: '合否設定' })).toBeNull();
    expectReadable(container);
  });

  it("a refused detail says why in the page's language, not the server's English", async () => {
    server.use(fail('tester/detail', 403, 'You may not see this tester.', 'tester_not_visible', 'get'));
    const { container } = renderWithProviders(
      <Routes>
        <Route path="/examinees/:id" element={<ExamineeDetailPage />} />
      </Routes>,
      { actor: 3, route: '/examinees/7' },
    );
    expect(await screen.findByText('この受験者の情報を表示する権限がありません。')).toBeInTheDocument();
    expectReadable(container);
  });

  it('the printable report: identity, timeline, markings with times, recordings and decision', async () => {
    const { container } = renderDetail(4, '/examinees/7/report');
    const report = await screen.findByTestId('examinee-report');
    expect(within(report).getByTestId('report-name')).toHaveTextContent('山田 花子');
    const marking = within(report).getByTestId('report-marking');
    expect(marking).toHaveTextContent('2026-11-25 09:00:05');
    expect(marking).toHaveTextContent('本人不一致');
    expect(marking).toHaveTextContent('録画内 00:01:05');
    expect(within(report).getByText('試験開始')).toBeInTheDocument();
    expect(await within(report).findByTestId('report-decision')).toHaveTextContent('合格');
    expectReadable(container);
  });

  it('the printable report lists an AI flag from a still taken while the connection was down as not scored', async () => {
    const flag = (id: number, excused: boolean) => ({
      id,
      marking_at: '2026-11-25T09:10:00.000+09:00',
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
      excuse_reason: excused ? 'late' : null,
    });
    server.use(
      ok('tester/detail', { ...DETAIL, ai_markings: [flag(1, false), flag(2, true)] }, 'get'),
      ok('test/pass', { test_id: 7, pass: 1 }, 'get'),
    );
    renderWithProviders(
      <Routes>
        <Route path="/examinees/:id/report" element={<ExamineeReportPage />} />
      </Routes>,
      { actor: 4, route: '/examinees/7/report' },
    );
    const rows = await screen.findAllByTestId('report-ai-marking');
    expect(rows[0]).toHaveTextContent('99');
    expect(rows[1]).toHaveTextContent('除外（接続が切れていた間の撮影）・スコアに含めない');
    expect(rows[1]).not.toHaveTextContent('99');
  });

  it('logins list: the tester state by name, the time in Tokyo', async () => {
    server.use(
      ok(
        'logins',
        {
          count: 2,
          page_count: 1,
          page: 1,
          list: [
            {
              exam_user_id: 3,
              login_id: 'tester10',
              ex_login_id: null,
              group_id: 1,
              group: 'Demo University',
              group_code: 'DEMO',
              actor: 1,
              target: '',
              is_mc_startup: 1,
              status: 5,
              kicked: 0,
              rejected: 0,
              updated_at: '2026-11-24T23:19:42.000Z',
            },
            {
              exam_user_id: 4,
              login_id: 'checker01',
              ex_login_id: null,
              group_id: null,
              group: null,
              group_code: null,
              actor: 2,
              target: 'auth.example.org',
              is_mc_startup: 0,
              status: null,
              kicked: 0,
              rejected: 0,
              updated_at: '2026-11-25T08:20:00.000+09:00',
            },
          ],
        },
        'get',
      ),
    );
    const { container } = renderWithProviders(<LoginsPage />, { actor: 4 });
    const [tester, checker] = await screen.findAllByTestId('login-status');
    expect(tester).toHaveTextContent('受験中');
    expect(checker).toHaveTextContent('-');
    expect(screen.getByText('2026-11-25 08:19:42')).toBeInTheDocument();
    expect(screen.getByText('このサーバー')).toBeInTheDocument();
    expectReadable(container);
  });

  it('matching status: tester states by name and the memo without its quotes', async () => {
    const tester = {
      id: 3,
      test_id: 7,
      monitor_id: null,
      login_id: 'tester10',
      ex_login_id: null,
      is_mc_startup: 1,
      target: '',
      exam_name: '山田 花子',
      status: 1,
      rejected: 0,
      kicked: 0,
      exam_url: '',
      startup_parameters: { is_auth: 1, is_proctor: 1, is_record: 1, is_summary: 0, memo: '"午前の部"' },
      matching_status: 1,
      on_hold: 0,
    };
    server.use(
      ok('checkers/monitoring', { matchings: [], not_matchings: [tester], kicked_users: [] }, 'get'),
    );
    const { container } = renderWithProviders(<CheckersMonitoringPage />, { actor: 4 });
    expect(await screen.findByTestId('tester-status')).toHaveTextContent('ログイン');
    expect(screen.getByText('午前の部')).toBeInTheDocument();
    expect(container.textContent).not.toContain('"午前の部"');
    expectReadable(container);
  });

  it("exam end: the examinee's markings in Tokyo time, and its own report ready to print", async () => {
    server.use(ok('tester/detail', DETAIL, 'get'));
    const { container } = renderWithProviders(<ExamEndPage />, { actor: 1 });
    const table = await screen.findByRole('table', { name: '記録された内容' });
    expect(within(table).getByText('2026-11-25 09:00:05')).toBeInTheDocument();
    const report = screen.getByTestId('examinee-report');
    expect(within(report).getByTestId('report-name')).toHaveTextContent('山田 花子');
    // The examinee's own report carries no pass/fail decision.
    expect(within(report).queryByTestId('report-decision')).toBeNull();
    expect(screen.getByRole('button', { name: '監視情報のレポートを印刷・PDFで保存' })).toBeEnabled();
    expectReadable(container);
  });
});
