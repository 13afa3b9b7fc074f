import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { http, HttpResponse } from 'msw';
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { server, ok } from '../../../tests/msw/server';
import { loginState, renderWithProviders } from '../../../tests/render';
import { termsTemplate, testerDetail } from '../../../tests/fixtures/tester-detail';
import { i18next } from '../../i18n';
import { setNavigator } from '../../app/navigation';
import { defaultStartupParams, type StartupParams } from '../../features/startup/startup-fields';
import { ModalHost } from '../../features/layout/components/modal-host';
import EnvSettingPage from './env-setting-page';
import IdentificationPage from './identification-page';
import IdentificationAiPage from './identification-ai-page';
import ExaminingPage from './examining-page';
import { selectTester } from '@/features/tester/tester-slice';

const media = vi.hoisted(() => ({
  captureStill: vi.fn(),
}));

vi.mock('../../media/master', () => ({ startMaster: vi.fn(() => new Promise(() => undefined)) }));
vi.mock('../../media/devices', async (orig) => ({
  ...(await orig<Record<string, unknown>>()),
  acquireLocalMedia: vi.fn(async () => ({ camera: { ok: true }, microphone: { ok: true } })),
  captureStill: media.captureStill,
}));

const still = (n: number) => ({
  image: `IMG${n}`,
  contentType: 'image/jpeg' as const,
  dataUrl: `data:image/jpeg;base64,IMG${n}`,
});

const cmd = (id: number, message: string, sendType = 0) => ({
  id,
  send_type: sendType,
  message_type: 3,
  kind: 'command',
  message,
  created_at: '',
});

/** Records webrtc_message posts and answers BEFORE_CLOSE with BEFORE_CLOSE_OK (as a checker console does). */
function messageServer(initial: ReturnType<typeof cmd>[] = []) {
  const posted: { message: string; kind: string }[] = [];
  const queue = [...initial];
  let nextId = 100;
  server.use(
    http.post('*/api/v1/webrtc_message.php', async ({ request }) => {
      const body = (await request.json()) as { message: string; kind: string };
      posted.push(body);
      const id = (nextId += 1);
      if (body.message === 'BEFORE_CLOSE') queue.push(cmd((nextId += 1), 'BEFORE_CLOSE_OK'));
      return HttpResponse.json({
        status: 200,
        message: 'OK',
        result: { messages: [{ ...cmd(id, body.message, 1), kind: body.kind }] },
      });
    }),
    http.get('*/api/v1/webrtc_message.php', ({ request }) => {
      const since = Number(new URL(request.url).searchParams.get('since_id') ?? 0);
      const messages = queue.filter((m) => m.id > since);
      return HttpResponse.json({ status: 200, message: 'OK', result: { messages } });
    }),
  );
  return posted;
}

const navigations: string[] = [];
let logouts = 0;
beforeEach(() => {
  navigations.length = 0;
  logouts = 0;
  setNavigator((to) => navigations.push(to));
  media.captureStill.mockReset();
  vi.spyOn(window, 'open').mockImplementation(() => ({ closed: false, close: vi.fn() }) as unknown as Window);
  server.use(
    ok('tester/detail', testerDetail(), 'get'),
    ok('get_env_setting_term', termsTemplate('<p>環境規約本文</p>')),
    ok('get_env_setting_term', termsTemplate('<p>環境規約本文</p>'), 'get'),
    ok('get_examining_term', termsTemplate('<p>受験上の注意本文</p>')),
    ok('matching', { matchings: [], matching_timeout: 5 }),
    ok('webrtc_message', { messages: [] }, 'get'),
    ok('tester/status', { tester_id: 7, test_id: 1, status: 4, previous_status: 3, changed: true }),
    ok('tester/kick_out', { tester_id: 7, kicked: 1 }),
    http.post('*/api/v1/logout.php', () => {
      logouts += 1;
      return HttpResponse.json({ status: 200, message: 'OK', result: null });
    }),
  );
});
afterEach(() => {
  setNavigator(null);
  vi.restoreAllMocks();
});

function render(ui: React.ReactElement, params: Partial<StartupParams> = {}) {
  return renderWithProviders(
    <>
      {ui}
      <ModalHost />
    </>,
    {
      preloadedState: {
        ...loginState(1),
        startup: { params: { ...defaultStartupParams(), ...params } },
      } as never,
    },
  );
}

const t = (key: string): string => i18next.t(key as never);

describe('routing after /env-setting (is_auth)', () => {
  async function pressNext() {
    await waitFor(() => expect(screen.getByTestId('popup-state')).toHaveAttribute('data-state', 'ok'));
    await userEvent.click(screen.getByLabelText('上記の規約に同意します'));
    await userEvent.click(screen.getByTestId('env-next'));
  }

  it('is_auth 0 in tester/detail skips the identity check and goes to /examining', async () => {
    server.use(
      ok(
        'tester/detail',
        testerDetail({ startup_parameters: { is_proctor: 1, memo: '', is_auth: 0 } }),
        'get',
      ),
    );
    render(<EnvSettingPage />, { isAuth: 1 });
    await pressNext();
    await waitFor(() => expect(navigations).toEqual(['/examining']));
  });

  it('without is_auth on the server, the start-up isAuth 0 decides', async () => {
    server.use(ok('tester/detail', testerDetail({ startup_parameters: { is_proctor: 1, memo: '' } }), 'get'));
    render(<EnvSettingPage />, { isAuth: 0 });
    await pressNext();
    await waitFor(() => expect(navigations).toEqual(['/examining']));
  });

  it('is_auth 1 goes to the monitor check, or the AI check when is_ai_auth is 1', async () => {
    const first = render(<EnvSettingPage />, { isAuth: 0 });
    await pressNext();
    await waitFor(() => expect(navigations).toEqual(['/identification']));
    first.unmount();
    server.use(
      ok(
        'tester/detail',
        testerDetail({ startup_parameters: { is_proctor: 1, memo: '', is_auth: '1', is_ai_auth: true } }),
        'get',
      ),
    );
    render(<EnvSettingPage />);
    await pressNext();
    await waitFor(() => expect(navigations).toEqual(['/identification', '/identification-ai']));
  });
});

describe('exit modes on /examining', () => {
  it('KICK_OUT on a JT start-up shows the forced close alert; Close leaves to /close after BEFORE_CLOSE', async () => {
    const posted = messageServer([cmd(9, 'KICK_OUT')]);
    render(<ExaminingPage />, { loginId: 'JT-1' });
    expect(await screen.findByText(t('tester:kick.forcedClose'), {}, { timeout: 4000 })).toBeVisible();
    expect(screen.queryByText(t('tester:kick.forcedLogout'))).toBeNull();
    expect(screen.getByTestId('exit-notice')).toHaveTextContent('強制的に退出させられました');
    await userEvent.click(screen.getAllByRole('button', { name: t('common:close') }).at(-1)!);
    await userEvent.click(screen.getByTestId('exit-notice').querySelectorAll('button')[1]!);
    await waitFor(() => expect(navigations).toEqual(['/close']), { timeout: 4000 });
    expect(posted.map((p) => p.message)).toContain('BEFORE_CLOSE');
    expect(logouts).toBe(0);
  });

  it('KICK_OUT otherwise shows the forced logout alert; logout then reloads the start-up URL', async () => {
    const assign = vi.fn();
    vi.spyOn(window, 'location', 'get').mockReturnValue({ ...window.location, assign } as Location);
    const posted = messageServer([cmd(9, 'KICK_OUT')]);
    render(<ExaminingPage />, { rawStartupUrl: 'http://localhost/?actor=1&x=1' });
    expect(await screen.findByText(t('tester:kick.forcedLogout'), {}, { timeout: 4000 })).toBeVisible();
    expect(screen.queryByText(t('tester:kick.forcedClose'))).toBeNull();
    const buttons = screen.getByTestId('exit-notice').querySelectorAll('button');
    expect(buttons).toHaveLength(1);
    await userEvent.click(buttons[0]!);
    await waitFor(() => expect(assign).toHaveBeenCalledWith('http://localhost/?actor=1&x=1'), {
      timeout: 4000,
    });
    // spec §4 order: BEFORE_CLOSE (with the session), then logout, then navigation.
    expect(posted.map((p) => p.message)).toContain('BEFORE_CLOSE');
    expect(logouts).toBe(1);
  });

  it("the header's logout runs the exit sequence: BEFORE_CLOSE, logout, then /close for a JT start-up", async () => {
    const posted = messageServer();
    server.use(ok('tester/detail', testerDetail({ status: 4 }), 'get'));
    const { Header } = await import('../../features/layout/components/header');
    render(
      <>
        <Header page="examining" loginHref="/login" />
        <ExaminingPage />
      </>,
      { loginId: 'JT-9' },
    );
    const logout = await screen.findByRole('button', { name: t('layout:logout') });
    await waitFor(() => expect(logout).toBeEnabled());
    await userEvent.click(logout);
    await waitFor(() => expect(navigations).toEqual(['/close']), { timeout: 5000 });
    expect(posted.map((p) => p.message)).toEqual(['BEFORE_CLOSE']);
    expect(logouts).toBe(1);
  });

  it('leaving the page while the logout runs sends the logout, not the DISCONNECT that says "closed, maybe reloading"', async () => {
    messageServer();
    // Nobody answers BEFORE_CLOSE for a while: the exit is surely in its first steps when the page goes.
    server.use(
      http.get('*/api/v1/webrtc_message.php', async () => {
        await new Promise((r) => setTimeout(r, 1500));
        return HttpResponse.json({ status: 200, message: 'OK', result: { messages: [] } });
      }),
    );
    const kickOuts: string[] = [];
    server.use(
      ok('tester/detail', testerDetail({ status: 4 }), 'get'),
      http.post('*/api/v1/tester/kick_out.php', async ({ request }) => {
        kickOuts.push(((await request.json()) as { method: string }).method);
        return HttpResponse.json({ status: 200, message: 'OK', result: { tester_id: 7, kicked: 0 } });
      }),
    );
    // This page's own page-hide handlers (earlier tests' pages may have left theirs on the window).
    const added = vi.spyOn(window, 'addEventListener');
    const pageGoes = () => {
      for (const [type, fn] of added.mock.calls)
        if (type === 'pagehide') (fn as EventListener)(new Event('pagehide'));
    };
    const { Header } = await import('../../features/layout/components/header');
    const { store } = render(
      <>
        <Header page="examining" loginHref="/login" />
        <ExaminingPage />
      </>,
    );
    sessionStorage.setItem('session', JSON.stringify(store.getState().session.login));
    const logout = await screen.findByRole('button', { name: t('layout:logout') });
    // The live channel runs (its page-hide handler is in place).
    await waitFor(() => expect(store.getState().live?.polling).toBe(true));
    // A window closed without an exit under way: the checker is told at once.
    pageGoes();
    await waitFor(() => expect(kickOuts).toEqual(['DISCONNECT']));
    await userEvent.click(logout);
    await waitFor(() => expect(logout).toBeDisabled());
    expect(store.getState().session.status).toBe('loggingOut');
    // The session ends whatever happens now: a page reached from here does not restore it.
    expect(sessionStorage.getItem('session')).toBeNull();
    pageGoes();
    // The exit's own keepalive logout goes; no second DISCONNECT.
    await waitFor(() => expect(logouts).toBeGreaterThanOrEqual(1));
    expect(kickOuts).toEqual(['DISCONNECT']);
    // (The page stayed here: the exit runs to its end.)
    await waitFor(() => expect(navigations).toEqual(['/login']), { timeout: 5000 });
    expect(store.getState().session.status).toBe('loggedOut');
  });

  it('recording time exceeded logs out with the message (BEFORE_CLOSE first)', async () => {
    const posted = messageServer();
    const now = new Date().toISOString();
    server.use(
      ok('tester/detail', testerDetail({ status: 5, recording_started_at: now, server_time: now }), 'get'),
    );
    render(<ExaminingPage />, { maxRectime: 1 });
    expect(
      await screen.findByText(t('tester:errors.recordingTimeExceeded'), {}, { timeout: 6000 }),
    ).toBeVisible();
    expect(logouts).toBe(1);
    expect(posted.map((p) => p.message)).toEqual(['BEFORE_CLOSE']);
    expect(navigations).toEqual(['/login']);
  });

  it('counts the recording time from the first recording start on the server: a reload does not reset it', async () => {
    messageServer();
    // The server's clock is 10 minutes ahead of this browser's; the recording started 61 s ago by the server.
    const server10 = Date.now() + 600_000;
    server.use(
      ok(
        'tester/detail',
        testerDetail({
          status: 5,
          recording_started_at: new Date(server10 - 61_000).toISOString(),
          server_time: new Date(server10).toISOString(),
          startup_parameters: { is_proctor: 1, memo: '', is_auth: 1, max_rectime: 60 },
        }),
        'get',
      ),
    );
    // The page's own start-up parameters say nothing (a new login): the server's max_rectime counts.
    render(<ExaminingPage />);
    expect(await screen.findByText(t('tester:errors.recordingTimeExceeded'))).toBeVisible();
    expect(logouts).toBe(1);
  });

  it('does not end a sitting whose recording time is not used up, whatever the page load', async () => {
    messageServer();
    const now = Date.now();
    server.use(
      ok(
        'tester/detail',
        testerDetail({
          status: 5,
          recording_started_at: new Date(now - 30_000).toISOString(),
          server_time: new Date(now).toISOString(),
          startup_parameters: { is_proctor: 1, memo: '', is_auth: 1, max_rectime: 3600 },
        }),
        'get',
      ),
    );
    const { store } = render(<ExaminingPage />);
    await waitFor(() => expect(selectTester(store.getState()).recordingDeadline).not.toBeNull());
    const left = selectTester(store.getState()).recordingDeadline! - Date.now();
    expect(left).toBeGreaterThan(3_500_000);
    expect(left).toBeLessThanOrEqual(3_570_000 + 1000);
    expect(logouts).toBe(0);
  });

  it('a 401 while examining says authentication error, monitoring ends, and offers Close', async () => {
    server.use(
      ok('tester/detail', testerDetail({ status: 5 }), 'get'),
      http.get('*/api/v1/webrtc_message.php', () =>
        HttpResponse.json({ status: 401, message: 'Unauthorized', result: null }, { status: 401 }),
      ),
    );
    const { store } = render(<ExaminingPage />);
    const text = t('tester:errors.authError');
    await waitFor(() => expect(screen.getAllByText(text).length).toBeGreaterThan(0), { timeout: 4000 });
    expect(selectTester(store.getState()).exit).toBe('monitoringEnded');
    expect(store.getState().session.status).toBe('loggedOut');
    expect(screen.getByTestId('exit-close')).toBeVisible();
  });
});

describe('/identification head shot', () => {
  it('uploads a head-shot still before asking the monitor to check', async () => {
    const order: string[] = [];
    media.captureStill.mockResolvedValue(still(1));
    let shot: unknown = null;
    server.use(
      http.post('*/api/v1/tester/head_shot.php', async ({ request }) => {
        shot = await request.json();
        order.push('head_shot');
        return HttpResponse.json({ status: 200, message: 'OK', result: { url: '/img/1.jpg' } });
      }),
      http.post('*/api/v1/webrtc_message.php', async ({ request }) => {
        const body = (await request.json()) as { message: string };
        order.push(body.message);
        return HttpResponse.json({
          status: 200,
          message: 'OK',
          result: { messages: [cmd(1, body.message, 1)] },
        });
      }),
    );
    render(<IdentificationPage />);
    expect(await screen.findByTestId('idcard-item')).toBeInTheDocument();
    for (const box of screen.getAllByRole('checkbox')) await userEvent.click(box);
    await userEvent.click(screen.getByTestId('request-check'));
    await waitFor(() => expect(order).toEqual(['head_shot', 'AUTHENTICATING']));
    expect(shot).toEqual({ image: 'IMG1', content_type: 'image/jpeg' });
  });
});

describe('/identification-ai photo cycle', () => {
  const status = (over: Record<string, unknown> = {}) => ({
    status: 0,
    process: 0,
    face_retry: 0,
    id_card_retry: 0,
    ai_all_retry: 0,
    face_url: null,
    id_card_url: null,
    messages: [],
    limits: { face: 3, id_card: 3, all: 5 },
    fallback: 1,
    ...over,
  });

  it('take → retake → take → register; unavailable falls back to monitor authentication', async () => {
    media.captureStill.mockResolvedValueOnce(still(1)).mockResolvedValueOnce(still(2));
    let sent: unknown = null;
    server.use(
      ok('ai_auth/status', status()),
      http.post('*/api/v1/ai_auth/face.php', async ({ request }) => {
        sent = await request.json();
        server.use(ok('ai_auth/status', status({ status: 2, face_retry: 1, ai_all_retry: 1 })));
        return HttpResponse.json({
          status: 200,
          message: 'OK',
          result: {
            ok: false,
            error: { code: 'ai_unavailable', message: 'unavailable', remaining: 2, limit: 3 },
            status: 2,
            process: 0,
            tester_status: 2,
            url: null,
          },
        });
      }),
    );
    render(<IdentificationAiPage />);
    await waitFor(() => expect(screen.getByTestId('ai-state')).toHaveAttribute('data-phase', 'face'));
    await userEvent.click(screen.getByTestId('ai-take'));
    expect(await screen.findByRole('img', { name: t('identification:ai.photoLabel') })).toHaveAttribute(
      'src',
      'data:image/jpeg;base64,IMG1',
    );
    await userEvent.click(screen.getByTestId('ai-retake'));
    await waitFor(() => expect(screen.getByTestId('ai-state')).toHaveAttribute('data-phase', 'face'));
    await userEvent.click(screen.getByTestId('ai-take'));
    expect(await screen.findByRole('img', { name: t('identification:ai.photoLabel') })).toHaveAttribute(
      'src',
      'data:image/jpeg;base64,IMG2',
    );
    await userEvent.click(screen.getByTestId('ai-register'));
    expect(await screen.findByText(t('identification:ai.fallback.manual'))).toBeVisible();
    expect(sent).toEqual({ image: 'IMG2', content_type: 'image/jpeg' });
    await userEvent.click(screen.getAllByRole('button', { name: t('common:close') }).at(-1)!);
    await waitFor(() => expect(navigations).toEqual(['/identification']));
  });
  /** One rejected face photo that uses up the retries; the server answers with the sitting's fallback. */
  function lastRetry(aiStatus: number, fallback: number) {
    media.captureStill.mockResolvedValueOnce(still(3));
    server.use(
      ok('ai_auth/status', status({ fallback })),
      http.post('*/api/v1/ai_auth/face.php', () => {
        server.use(
          ok('ai_auth/status', status({ status: aiStatus, face_retry: 3, ai_all_retry: 3, fallback })),
        );
        return HttpResponse.json({
          status: 200,
          message: 'OK',
          result: {
            ok: false,
            error: { code: 'retry_limit_exceeded', message: 'limit', remaining: 0, limit: 3 },
            status: aiStatus,
            process: 0,
            tester_status: 1,
            url: null,
          },
        });
      }),
    );
  }

  async function registerOnePhoto() {
    const r = render(<IdentificationAiPage />);
    await waitFor(() => expect(screen.getByTestId('ai-state')).toHaveAttribute('data-phase', 'face'));
    await userEvent.click(screen.getByTestId('ai-take'));
    await userEvent.click(await screen.findByTestId('ai-register'));
    return r;
  }

  it('is_ai_faild_manual 2: continues to the exam with the last photo, for a manager to review', async () => {
    lastRetry(4, 2);
    await registerOnePhoto();
    expect(await screen.findByText(t('identification:ai.fallback.continue'))).toBeVisible();
    await userEvent.click(screen.getAllByRole('button', { name: t('common:close') }).at(-1)!);
    await waitFor(() => expect(navigations).toEqual(['/examining']));
    expect(logouts).toBe(0);
  });

  it('is_ai_faild_manual 0: shows the kick-out notice, then leaves with PUT_MYSELF_AI (spec exit mode)', async () => {
    const kicks: unknown[] = [];
    server.use(
      http.post('*/api/v1/tester/kick_out.php', async ({ request }) => {
        kicks.push(await request.json());
        return HttpResponse.json({ status: 200, message: 'OK', result: { tester_id: 7, kicked: 1 } });
      }),
    );
    lastRetry(3, 0);
    const { store } = await registerOnePhoto();
    expect(await screen.findByText(t('identification:ai.fallback.logout'))).toBeVisible();
    // Like a kick-out by a monitor, the page says the examinee left the exam.
    expect(screen.getByTestId('exit-notice')).toHaveTextContent(t('identification:ai.forcedOut'));
    await userEvent.click(screen.getAllByRole('button', { name: t('common:close') }).at(-1)!);
    await waitFor(() => expect(store.getState().session.status).toBe('loggedOut'));
    expect(kicks).toEqual([{ method: 'PUT_MYSELF_AI' }]);
    expect(logouts).toBe(0);
    expect(navigations).toEqual(['/login']);
  });
});
