import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { http, HttpResponse } from 'msw';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { server, ok, fail } from '../../../tests/msw/server';
import { renderWithProviders } from '../../../tests/render';
import { termsTemplate, testerDetail } from '../../../tests/fixtures/tester-detail';
import EnvSettingPage from './env-setting-page';
import IdentificationPage from './identification-page';
import IdentificationAiPage from './identification-ai-page';
import ExaminingPage from './examining-page';
import ExamEndPage from './exam-end-page';
import { ModalHost } from '../../features/layout/components/modal-host';
import { FakeStream, FakeTrack } from '../../../tests/fixtures/media';
import { selectTester } from '@/features/tester/tester-slice';

vi.mock('../../media/master', () => ({ startMaster: vi.fn(() => new Promise(() => undefined)) }));

const created: FakeTrack[] = [];
const track = (kind: string) => {
  const t = new FakeTrack(kind);
  created.push(t);
  return t;
};

let denyCamera = false;
beforeEach(() => {
  denyCamera = false;
  vi.stubGlobal('MediaStream', FakeStream);
  Object.defineProperty(navigator, 'mediaDevices', {
    configurable: true,
    value: {
      getUserMedia: vi.fn(async (c: MediaStreamConstraints) => {
        if (c.video && denyCamera) throw Object.assign(new Error('denied'), { name: 'NotAllowedError' });
        return new FakeStream([track(c.video ? 'video' : 'audio')]);
      }),
    },
  });
  vi.spyOn(window, 'open').mockImplementation(() => ({ closed: false, close: vi.fn() }) as unknown as Window);
  server.use(
    ok('tester/detail', testerDetail(), 'get'),
    ok('get_env_setting_term', termsTemplate('<p>環境規約本文</p>'), 'get'),
    ok('get_examining_term', termsTemplate('<p>受験上の注意本文</p>')),
    ok('matching', { matchings: [], matching_timeout: 5 }),
    ok('webrtc_message', { messages: [] }, 'get'),
    ok('tester/status', { tester_id: 7, test_id: 1, status: 4, previous_status: 3, changed: true }),
  );
});
afterEach(() => {
  // Ended tracks make the next test ask for the devices again (the registry keeps only live ones).
  created.splice(0).forEach((t) => t.stop());
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

const render = (ui: React.ReactElement) =>
  renderWithProviders(
    <>
      {ui}
      <ModalHost />
    </>,
    { actor: 1 },
  );

describe('/env-setting (PRE00002)', () => {
  it('checks camera, microphone and popup, shows the terms; Next waits for the agreement', async () => {
    render(<EnvSettingPage />);
    await waitFor(() => expect(screen.getByTestId('camera-state')).toHaveAttribute('data-state', '2'));
    expect(screen.getByTestId('microphone-state')).toHaveAttribute('data-state', '2');
    expect(screen.getByTestId('popup-state')).toHaveAttribute('data-state', 'ok');
    expect(await screen.findByText('環境規約本文')).toBeInTheDocument();
    expect(screen.getByText('ブラウザの再読み込み（更新）ボタンは押さないでください。')).toBeInTheDocument();
    expect(screen.getByRole('meter', { name: 'マイクの入力レベル' })).toHaveAttribute('aria-valuenow', '0');
    const next = screen.getByTestId('env-next');
    expect(next).toBeDisabled();
    await userEvent.click(screen.getByLabelText('上記の規約に同意します'));
    expect(next).toBeEnabled();
  });

  it('a denied camera shows the reason and keeps Next disabled', async () => {
    denyCamera = true;
    render(<EnvSettingPage />);
    await waitFor(() => expect(screen.getByTestId('camera-state')).toHaveAttribute('data-state', '3'));
    expect(screen.getByText(/使用が許可されていません/)).toBeInTheDocument();
    await userEvent.click(screen.getByLabelText('上記の規約に同意します'));
    expect(screen.getByTestId('env-next')).toBeDisabled();
  });

  it('a blocked popup is reported', async () => {
    vi.mocked(window.open).mockReturnValue(null);
    render(<EnvSettingPage />);
    await waitFor(() => expect(screen.getByTestId('popup-state')).toHaveAttribute('data-state', 'blocked'));
    expect(screen.getByText(/ポップアップがブロックされています/)).toBeInTheDocument();
  });

  it('a network error on Next asks to press Next again', async () => {
    render(<EnvSettingPage />);
    await waitFor(() => expect(screen.getByTestId('popup-state')).toHaveAttribute('data-state', 'ok'));
    await userEvent.click(screen.getByLabelText('上記の規約に同意します'));
    server.use(http.get('*/api/v1/tester/detail.php', () => HttpResponse.error()));
    await userEvent.click(screen.getByTestId('env-next'));
    expect(
      await screen.findByText('ネットワークエラーが発生しました。もう一度「次へ」を押してください。'),
    ).toBeInTheDocument();
  });
});

describe('/identification (PRE00003, monitor)', () => {
  it('sends AUTHENTICATING when ready and shows pending', async () => {
    let posted: unknown = null;
    server.use(
      http.post('*/api/v1/webrtc_message.php', async ({ request }) => {
        posted = await request.json();
        return HttpResponse.json({
          status: 200,
          message: 'OK',
          result: {
            messages: [
              {
                id: 1,
                send_type: 1,
                message_type: 1,
                kind: 'command',
                message: 'AUTHENTICATING',
                created_at: '',
              },
            ],
          },
        });
      }),
    );
    render(<IdentificationPage />);
    expect(await screen.findByTestId('idcard-item')).toBeInTheDocument();
    const button = screen.getByTestId('request-check');
    expect(button).toBeDisabled();
    for (const box of screen.getAllByRole('checkbox')) await userEvent.click(box);
    await waitFor(() => expect(button).toBeEnabled());
    await userEvent.click(button);
    await waitFor(() =>
      expect(screen.getByTestId('identification-state')).toHaveAttribute('data-state', 'pending'),
    );
    expect(posted).toMatchObject({ tester_id: 7, send_type: 1, kind: 'command', message: 'AUTHENTICATING' });
  });

  it('after a reload, a check asked for earlier (AUTHENTICATING, no answer yet) is still pending', async () => {
    server.use(
      ok(
        'webrtc_message',
        {
          messages: [
            {
              id: 4,
              send_type: 1,
              message_type: 1,
              kind: 'command',
              message: 'AUTHENTICATING',
              created_at: '',
            },
          ],
        },
        'get',
      ),
      ok('tester/detail', testerDetail({ status: 2 }), 'get'),
    );
    render(<IdentificationPage />);
    await waitFor(() =>
      expect(screen.getByTestId('identification-state')).toHaveAttribute('data-state', 'pending'),
    );
    expect(screen.getByTestId('request-check')).toBeDisabled();
  });

  it('a rejected examinee shows as already rejected', async () => {
    server.use(ok('tester/detail', testerDetail({ rejected: 1 }), 'get'));
    render(<IdentificationPage />);
    await waitFor(() =>
      expect(screen.getByTestId('identification-state')).toHaveAttribute('data-state', 'rejected'),
    );
    expect(screen.getByText(/本人確認が却下されました（確認済み）/)).toBeInTheDocument();
  });

  it('shows chat messages newest first and REJECTED from the monitor', async () => {
    server.use(
      ok(
        'webrtc_message',
        {
          messages: [
            { id: 3, send_type: 0, message_type: 2, kind: 'command', message: 'REJECTED', created_at: '' },
            { id: 2, send_type: 0, message_type: 2, kind: 'message', message: '二通目', created_at: '' },
            { id: 1, send_type: 0, message_type: 2, kind: 'message', message: '一通目', created_at: '' },
          ],
        },
        'get',
      ),
    );
    render(<IdentificationPage />);
    const list = await screen.findByTestId('chat-items');
    await waitFor(() => expect(within(list).getAllByRole('listitem')).toHaveLength(2));
    expect(within(list).getAllByRole('listitem')[0]).toHaveTextContent('二通目');
    await waitFor(() =>
      expect(screen.getByTestId('identification-state')).toHaveAttribute('data-state', 'rejected'),
    );
  });
});

describe('/identification-ai (PRE00003, AI)', () => {
  it('says automatic checking is unavailable and follows the fallback (monitor authentication)', async () => {
    server.use(
      ok('ai_auth/status', {
        status: 2,
        process: 0,
        face_retry: 0,
        id_card_retry: 0,
        ai_all_retry: 0,
        face_url: null,
        id_card_url: null,
        messages: [],
        limits: { face: 3, id_card: 3, all: 5 },
        fallback: 1,
      }),
    );
    render(<IdentificationAiPage />);
    await waitFor(() => expect(screen.getByTestId('ai-state')).toHaveAttribute('data-phase', 'fallback'));
  });

  it('starts with the face photo, 4 fixed texts and only the first checked', async () => {
    server.use(
      ok('ai_auth/status', {
        status: 0,
        process: 0,
        face_retry: 1,
        id_card_retry: 0,
        ai_all_retry: 1,
        face_url: null,
        id_card_url: null,
        messages: [],
        limits: { face: 3, id_card: 3, all: 5 },
        fallback: 1,
      }),
    );
    render(<IdentificationAiPage />);
    await waitFor(() => expect(screen.getByTestId('ai-state')).toHaveAttribute('data-phase', 'face'));
    const items = within(screen.getByTestId('ai-fixed-texts')).getAllByRole('listitem');
    expect(items).toHaveLength(4);
    expect(items[0]).toHaveTextContent('☑');
    expect(items[1]).toHaveTextContent('☐');
    expect(screen.getByTestId('ai-notice')).toHaveTextContent('残り2回');
    expect(screen.getByTestId('ai-take')).toBeInTheDocument();
  });
});

describe('/env-setting for a sitting already under way (re-login, crash, reload)', () => {
  const navigations: string[] = [];
  beforeEach(async () => {
    navigations.length = 0;
    const { setNavigator } = await import('../../app/navigation');
    setNavigator((to) => navigations.push(to));
  });
  afterEach(async () => {
    const { setNavigator } = await import('../../app/navigation');
    setNavigator(null);
  });

  it.each([
    [5, { is_auth: 1 }, '/examining'],
    [6, { is_auth: 1 }, '/examining'],
    [3, { is_auth: 1 }, '/examining'],
    [2, { is_auth: 1, is_ai_auth: 0 }, '/identification'],
    [2, { is_auth: 1, is_ai_auth: 1 }, '/identification-ai'],
    [2, { is_auth: 0 }, '/examining'],
  ])('state %i (%o) goes straight back to %s, without the device checks', async (status, sp, to) => {
    server.use(
      ok(
        'tester/detail',
        testerDetail({ status, startup_parameters: { is_proctor: 1, memo: '', ...sp } }),
        'get',
      ),
    );
    render(<EnvSettingPage />);
    // Until the sitting's state is known, the page says it is checking and shows no device checks to act on.
    expect(screen.getByTestId('env-resume-checking')).toHaveTextContent('受験の状況を確認しています');
    expect(screen.queryByTestId('camera-state')).toBeNull();
    expect(screen.queryByTestId('env-next')).toBeNull();
    await waitFor(() => expect(navigations).toEqual([to]));
    expect(screen.queryByTestId('camera-state')).toBeNull();
    expect(navigator.mediaDevices.getUserMedia).not.toHaveBeenCalled();
  });

  it('state 1 (just logged in) stays on /env-setting', async () => {
    render(<EnvSettingPage />);
    await waitFor(() => expect(screen.getByTestId('popup-state')).toHaveAttribute('data-state', 'ok'));
    expect(screen.queryByTestId('env-resume-checking')).toBeNull();
    expect(navigations).toEqual([]);
  });
});

describe('/examining (PRE00004)', () => {
  const chat = (...items: [number, number, string][]) =>
    ok(
      'webrtc_message',
      {
        messages: items.map(([id, sendType, message]) => ({
          id,
          send_type: sendType,
          message_type: 3,
          kind: 'message',
          message,
          created_at: '2026-01-01T00:00:00.000Z',
        })),
      },
      'get',
    );

  it('shows the chat for the whole exam: earlier messages read, a new one counted, announced and in the title', async () => {
    server.use(chat([1, 0, '前のメッセージ'], [2, 1, '返信']));
    const { store } = render(<ExaminingPage />);
    // The chat's code comes after the page's first render (its loading state).
    const panel = await screen.findByTestId('tester-chat', {}, { timeout: 5000 });
    await waitFor(() => expect(within(panel).getByText('前のメッセージ')).toBeVisible());
    // What was there before this page is not news.
    expect(screen.queryByTestId('chat-unread')).toBeNull();
    document.title = '受験';
    server.use(chat([3, 0, '画面を確認してください'], [1, 0, '前のメッセージ'], [2, 1, '返信']));
    expect(await screen.findByTestId('chat-unread', {}, { timeout: 5000 })).toHaveTextContent('未読 1 件');
    expect(screen.getByTestId('chat-announcement')).toHaveTextContent(
      '監視者から未読のメッセージが 1 件あります。',
    );
    expect(document.title).toBe('(1) 受験');
    const items = within(within(panel).getByTestId('chat-items')).getAllByRole('listitem');
    expect(items[0]).toHaveTextContent('画面を確認してください');
    await userEvent.click(within(panel).getByRole('button', { name: '既読にする' }));
    expect(screen.queryByTestId('chat-unread')).toBeNull();
    expect(document.title).toBe('受験');
    expect(selectTester(store.getState()).chatReadUpTo).toBe(3);
  });

  it('answers the monitor from /examining (message type 3)', async () => {
    const sent: unknown[] = [];
    server.use(
      http.post('*/api/v1/webrtc_message.php', async ({ request }) => {
        const b = (await request.json()) as Record<string, unknown>;
        sent.push(b);
        return HttpResponse.json({
          status: 200,
          message: 'OK',
          result: {
            messages: [
              { id: 9, send_type: 1, message_type: 3, kind: 'message', message: b.message, created_at: '' },
            ],
          },
        });
      }),
    );
    render(<ExaminingPage />);
    const input = await screen.findByLabelText('監視者へのメッセージ', {}, { timeout: 5000 });
    await userEvent.type(input, 'カメラを直しました');
    await userEvent.click(screen.getByRole('button', { name: '送信' }));
    await waitFor(() =>
      expect(sent).toEqual([expect.objectContaining({ message: 'カメラを直しました', message_type: 3 })]),
    );
    expect(await screen.findByText('カメラを直しました')).toBeVisible();
  });

  /** tester/detail answers only when `release` is called (a page whose sitting is still being asked for). */
  function heldDetail(detail: Record<string, unknown>) {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    server.use(
      http.get('*/api/v1/tester/detail.php', async () => {
        await gate;
        return HttpResponse.json({ status: 200, message: 'OK', result: detail });
      }),
    );
    return () => release();
  }

  it('a reload mid-exam: until the page knows where the sitting stands it shows only that it is loading, then the running exam', async () => {
    const release = heldDetail(testerDetail({ status: 5 }));
    const { Header } = await import('../../features/layout/components/header');
    render(
      <>
        <Header page="examining" loginHref="/login" />
        <ExaminingPage />
      </>,
    );
    const loading = await screen.findByTestId('exam-opening');
    expect(loading).toHaveAttribute('role', 'status');
    expect(loading).toHaveTextContent('受験の状態を確認しています…');
    expect(screen.getByRole('heading', { name: '受験' })).toBeInTheDocument();
    // Nothing from the slice's defaults: no step 1, no notes to agree to, no login, no chat, no logout.
    expect(screen.queryByTestId('step-bar')).toBeNull();
    expect(screen.queryByText('受験上の注意を確認してください。')).toBeNull();
    expect(screen.queryByLabelText('受験上の注意を確認し、同意します')).toBeNull();
    expect(screen.queryByTestId('exam-login')).toBeNull();
    expect(screen.queryByTestId('recording-state')).toBeNull();
    expect(screen.queryByTestId('tester-chat')).toBeNull();
    expect(screen.queryByRole('button', { name: 'ログアウト' })).toBeNull();
    release();
    await waitFor(() => expect(screen.getByTestId('exam-phase')).toHaveAttribute('data-phase', 'examing'));
    expect(screen.queryByTestId('exam-opening')).toBeNull();
    expect(screen.getByTestId('exam-reopen')).toBeVisible();
    // spec §2: no logout while EXAMING.
    expect(screen.queryByRole('button', { name: 'ログアウト' })).toBeNull();
  });

  it('before the exam, the notes and the logout show once the sitting is known', async () => {
    const release = heldDetail(testerDetail({ status: 4 }));
    const { Header } = await import('../../features/layout/components/header');
    render(
      <>
        <Header page="examining" loginHref="/login" />
        <ExaminingPage />
      </>,
    );
    expect(await screen.findByTestId('exam-opening')).toBeVisible();
    expect(screen.queryByRole('button', { name: 'ログアウト' })).toBeNull();
    release();
    expect(await screen.findByLabelText('受験上の注意を確認し、同意します')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'ログアウト' })).toBeVisible();
  });

  it('says it is loading in English on an English page', async () => {
    heldDetail(testerDetail({ status: 5 }));
    renderWithProviders(<ExaminingPage />, { actor: 1, lang: 'en' });
    expect(await screen.findByTestId('exam-opening')).toHaveTextContent('Checking where your exam stands…');
    expect(screen.getByTestId('exam-opening')).toHaveAttribute('role', 'status');
  });

  it('a sitting that cannot be asked for says so and offers to try again; nothing else can be pressed', async () => {
    server.use(http.get('*/api/v1/tester/detail.php', () => HttpResponse.error()));
    const { Header } = await import('../../features/layout/components/header');
    render(
      <>
        <Header page="examining" loginHref="/login" />
        <ExaminingPage />
      </>,
    );
    expect(await screen.findByTestId('exam-error')).toHaveTextContent(
      'ネットワークエラーが発生しました。もう一度お試しください。',
    );
    expect(screen.queryByTestId('exam-login')).toBeNull();
    expect(screen.queryByRole('button', { name: 'ログアウト' })).toBeNull();
    server.use(ok('tester/detail', testerDetail({ status: 5 }), 'get'));
    await userEvent.click(screen.getByRole('button', { name: 'もう一度読み込む' }));
    await waitFor(() => expect(screen.getByTestId('exam-phase')).toHaveAttribute('data-phase', 'examing'));
    expect(screen.queryByTestId('exam-error')).toBeNull();
  });

  it('shows the notes, the monitoring label, recording not started yet; login waits for the agreement', async () => {
    render(<ExaminingPage />);
    expect(await screen.findByText('受験上の注意本文')).toBeInTheDocument();
    expect(screen.getByTestId('monitoring-label')).toHaveTextContent(
      '監視中です。この画面を閉じないでください。',
    );
    expect(screen.getByTestId('recording-state')).toHaveTextContent('録画していません');
    expect(screen.getByTestId('exam-login')).toBeDisabled();
    await userEvent.click(screen.getByLabelText('受験上の注意を確認し、同意します'));
    expect(screen.getByTestId('exam-login')).toBeEnabled();
  });

  it('opens the exam system with the MC token and starts the exam', async () => {
    const processes: unknown[] = [];
    server.use(
      ok('get_mc_token', { access_token: 't', window_open_url: '/demo-exam/?mc_token=t', expires_in: 60 }),
      http.post('*/api/v1/tester/status.php', async ({ request }) => {
        const b = (await request.json()) as { status: number };
        return HttpResponse.json({
          status: 200,
          message: 'OK',
          result: { tester_id: 7, test_id: 1, status: b.status, previous_status: 4, changed: true },
        });
      }),
      http.post('*/api/v1/:which/status.php', async ({ request, params }) => {
        processes.push([params.which, await request.json()]);
        return HttpResponse.json({
          status: 200,
          message: 'OK',
          result: { test_id: 1, test_status: 0, exam_process: 0 },
        });
      }),
    );
    const { store } = render(<ExaminingPage />);
    await userEvent.click(await screen.findByLabelText('受験上の注意を確認し、同意します'));
    // Before the exam: step 4 is the current one.
    const steps = within(screen.getByTestId('step-bar'));
    expect(steps.getByText(/4\. 受験前/)).toHaveAttribute('aria-current', 'step');
    await userEvent.click(screen.getByTestId('exam-login'));
    await waitFor(() => expect(screen.getByTestId('exam-phase')).toHaveAttribute('data-phase', 'examing'));
    // In the exam: every step before it is done, none is current.
    expect(screen.getByTestId('step-bar')).toHaveAttribute('data-current', 'done');
    expect(steps.getByText(/4\. 受験前/)).not.toHaveAttribute('aria-current');
    expect(steps.getAllByText('(完了)', { exact: false })).toHaveLength(4);
    expect(window.open).toHaveBeenCalledWith('/demo-exam/?mc_token=t', 'proctor-exam-system');
    expect(selectTester(store.getState()).loggedInToTestSystem).toBe(true);
    expect(selectTester(store.getState()).testerState).toBe(5);
    expect(processes).toContainEqual(['test', expect.objectContaining({ process: 0 })]);
  });

  it('KICK_OUT shows the forced logout alert and the forcibly removed text', async () => {
    server.use(
      ok(
        'webrtc_message',
        {
          messages: [
            { id: 9, send_type: 0, message_type: 3, kind: 'command', message: 'KICK_OUT', created_at: '' },
          ],
        },
        'get',
      ),
    );
    render(<ExaminingPage />);
    expect(
      await screen.findByText('監視者により強制ログアウトされました。', {}, { timeout: 4000 }),
    ).toBeInTheDocument();
    expect(screen.getByTestId('exit-notice')).toHaveTextContent('強制的に退出させられました');
    // The page no longer says the exam is running, or that it is monitored and connected.
    expect(screen.getByTestId('exam-phase')).toHaveAttribute('data-phase', 'ended');
    expect(screen.queryByTestId('monitoring-label')).toBeNull();
    await waitFor(() => expect(screen.getByTestId('live-status')).toHaveAttribute('data-status', 'stopped'));
    expect(screen.getByTestId('live-status')).not.toHaveTextContent('監視者と接続しています');
    expect(screen.getByTestId('exam-phase')).not.toHaveTextContent('受験中');
    expect(screen.getByTestId('exam-phase')).toHaveTextContent('このウィンドウでの監視は終了しました。');
  });

  it('back to a running exam after a reload: the exam state stays, and the exam window can be opened again', async () => {
    const processes: unknown[] = [];
    server.use(
      ok('tester/detail', testerDetail({ status: 5 }), 'get'),
      ok('get_mc_token', { access_token: 't', window_open_url: '/demo-exam/?mc_token=t', expires_in: 60 }),
      http.post('*/api/v1/:which/status.php', async ({ request, params }) => {
        processes.push([params.which, await request.json()]);
        return HttpResponse.json({
          status: 200,
          message: 'OK',
          result: { test_id: 1, test_status: 1, exam_process: 4 },
        });
      }),
      ok('tester/status', { tester_id: 7, test_id: 1, status: 5, previous_status: 5, changed: false }),
    );
    render(<ExaminingPage />);
    await waitFor(() => expect(screen.getByTestId('exam-phase')).toHaveAttribute('data-phase', 'examing'));
    const reopen = screen.getByTestId('exam-reopen');
    await userEvent.click(reopen);
    expect(window.open).toHaveBeenCalledWith('/demo-exam/?mc_token=t', 'proctor-exam-system');
    // spec §3 exam process relogin (4).
    await waitFor(() => expect(processes).toContainEqual(['test', expect.objectContaining({ process: 4 })]));
    await waitFor(() => expect(screen.queryByTestId('exam-reopen')).toBeNull());
  });

  it('MARKING_ALERT shows the alert text', async () => {
    let first = true;
    server.use(
      http.get('*/api/v1/webrtc_message.php', () => {
        const messages = first
          ? []
          : [
              {
                id: 5,
                send_type: 0,
                message_type: 3,
                kind: 'command',
                message: 'MARKING_ALERT:視線不良',
                created_at: '',
              },
            ];
        first = false;
        return HttpResponse.json({ status: 200, message: 'OK', result: { messages } });
      }),
    );
    render(<ExaminingPage />);
    expect(await screen.findByText('監視者からの通知：視線不良', {}, { timeout: 6000 })).toBeInTheDocument();
  });

  it('a sitting with the phone camera shows a QR code of a single-use link until the phone sends video; the exam waits for it', async () => {
    const phone = { state: 'waiting', since: null, camera: null, signaling_channel: null };
    const wire = (p: Record<string, unknown>) => ({
      matchings: [
        {
          monitor_id: 1,
          tester_id: 7,
          test_id: 1,
          checker_id: 2,
          file_name: '',
          matching_status: 2,
          login_id: 'tester01',
          ex_login_id: null,
          exam_name: '',
          tester_status: 4,
          rejected: 0,
          kicked: 0,
          matching_total_time: 0,
          matching_connected_time: 0,
          startup_parameters: { is_phone_camera: 1 },
          matching_command: 0,
          signaling_channel: null,
          viewer_client_id: null,
          phone: p,
        },
      ],
      matching_timeout: 1,
    });
    let codes = 0;
    server.use(
      ok('matching', wire(phone)),
      http.post('*/api/v1/tester/phone_pairing.php', () => {
        codes += 1;
        return HttpResponse.json({
          status: 200,
          message: 'OK',
          result: {
            code: `code-${codes}-0123456789abcdefghij`,
            expires_at: '2099-01-01T00:00:00.000+09:00',
            ttl_seconds: 120,
          },
        });
      }),
    );
    render(<ExaminingPage />);
    const panel = await screen.findByTestId('phone-panel', {}, { timeout: 4000 });
    expect(within(panel).getByTestId('phone-state')).toHaveTextContent(
      'スマートフォンのカメラ: まだ接続されていません',
    );
    const qr = await within(panel).findByRole('img', { name: 'スマートフォンで読み取るQRコード' });
    await waitFor(() => expect(qr).toHaveAttribute('data-ready', 'true'));
    expect(within(panel).getByTestId('phone-link')).toHaveTextContent(
      `${window.location.origin}/phone?lang=ja#code-1-0123456789abcdefghij`,
    );
    await userEvent.click(screen.getByLabelText('受験上の注意を確認し、同意します'));
    expect(screen.getByTestId('exam-login')).toBeDisabled();
    expect(screen.getByTestId('phone-blocks-start')).toHaveTextContent(
      'スマートフォンのカメラが映像を送信するまで',
    );

    // The phone publishes: no code any more, the camera named, and the exam may start.
    server.use(
      ok(
        'matching',
        wire({ ...phone, state: 'live', since: '2026-01-01T00:00:00.000+09:00', camera: 'environment' }),
      ),
    );
    await waitFor(
      () => expect(screen.getByTestId('phone-state')).toHaveTextContent('映像を送信しています（背面カメラ）'),
      {
        timeout: 4000,
      },
    );
    expect(screen.queryByTestId('phone-qr')).toBeNull();
    expect(screen.getByTestId('exam-login')).toBeEnabled();

    // Lost: the state says what to do, and a fresh code is shown (the first one was used up by the phone).
    server.use(
      ok(
        'matching',
        wire({ ...phone, state: 'lost', lost_reason: 'no_response', since: '2026-01-01T00:01:00.000+09:00' }),
      ),
    );
    await waitFor(() => expect(screen.getByTestId('phone-state')).toHaveTextContent('接続が切れました'), {
      timeout: 4000,
    });
    await waitFor(() => expect(screen.getByTestId('phone-link')).toHaveTextContent('#code-2-'));
    expect(codes).toBe(2);
  }, 20_000);
});

describe('/exam-end (PRE00005)', () => {
  beforeEach(() => {
    server.use(ok('tester/detail', testerDetail({ status: 7 }), 'get'));
  });

  it('is only for a finished exam: a running one goes back to /examining and proctoring goes on', async () => {
    const { setNavigator } = await import('../../app/navigation');
    const to: string[] = [];
    setNavigator((p) => to.push(p));
    try {
      server.use(ok('tester/detail', testerDetail({ status: 5 }), 'get'));
      render(<ExamEndPage />);
      await waitFor(() => expect(to).toEqual(['/examining']));
      expect(screen.queryByTestId('no-cheating')).toBeNull();
    } finally {
      setNavigator(null);
    }
  });

  it('shows the summary without cheating', async () => {
    render(<ExamEndPage />);
    expect(await screen.findByTestId('no-cheating')).toBeInTheDocument();
    expect(screen.getByTestId('marking-count')).toHaveTextContent('0');
  });

  it('shows the cheating notice when markings exist', async () => {
    server.use(
      ok(
        'tester/detail',
        testerDetail({
          status: 7,
          markings: [
            {
              id: 1,
              marking_at: '2025-01-01',
              url: null,
              mark: 3,
              message: '視線不良',
              label: 'POOR_VISION',
              score: 2,
              record_id: null,
            },
          ],
          marking_total_score: 2,
        }),
        'get',
      ),
    );
    render(<ExamEndPage />);
    expect(await screen.findByTestId('cheating-notice')).toBeInTheDocument();
    const table = screen.getByRole('table', { name: '記録された内容' });
    expect(within(table).getByText('視線不良')).toBeInTheDocument();
    // The printable report of the sitting holds the same marking.
    expect(within(screen.getByTestId('examinee-report')).getByText('視線不良')).toBeInTheDocument();
  });

  it('a failed load says so', async () => {
    server.use(fail('tester/detail', 500, 'boom', undefined, 'get'));
    render(<ExamEndPage />);
    expect(await screen.findByText('監視情報を取得できませんでした。')).toBeInTheDocument();
  });
});
