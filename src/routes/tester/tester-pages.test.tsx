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

vi.mock('../../media/master', () => ({ startMaster: vi.fn(() => new Promise(() => undefined)) }));

const created: FakeTrack[] = [];
class FakeTrack {
  readyState = 'live';
  constructor(readonly kind: string) {
    created.push(this);
  }
  stop() {
    this.readyState = 'ended';
  }
}
class FakeStream {
  constructor(private readonly tracks: FakeTrack[] = []) {}
  getTracks() {
    return this.tracks;
  }
  getVideoTracks() {
    return this.tracks.filter((t) => t.kind === 'video');
  }
  getAudioTracks() {
    return this.tracks.filter((t) => t.kind === 'audio');
  }
}

let denyCamera = false;
beforeEach(() => {
  denyCamera = false;
  vi.stubGlobal('MediaStream', FakeStream);
  Object.defineProperty(navigator, 'mediaDevices', {
    configurable: true,
    value: {
      getUserMedia: vi.fn(async (c: MediaStreamConstraints) => {
        if (c.video && denyCamera) throw Object.assign(new Error('denied'), { name: 'NotAllowedError' });
        return new FakeStream([new FakeTrack(c.video ? 'video' : 'audio')]);
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

describe('/examining (PRE00004)', () => {
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
    await userEvent.click(screen.getByTestId('exam-login'));
    await waitFor(() => expect(screen.getByTestId('exam-phase')).toHaveAttribute('data-phase', 'examing'));
    expect(window.open).toHaveBeenCalledWith('/demo-exam/?mc_token=t', 'proctor-exam-system');
    expect(store.getState().tester.loggedInToTestSystem).toBe(true);
    expect(store.getState().tester.testerState).toBe(5);
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
});

describe('/exam-end (PRE00005)', () => {
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
    expect(screen.getByText('視線不良')).toBeInTheDocument();
  });

  it('a failed load says so', async () => {
    server.use(fail('tester/detail', 500, 'boom', undefined, 'get'));
    render(<ExamEndPage />);
    expect(await screen.findByText('監視情報を取得できませんでした。')).toBeInTheDocument();
  });
});
