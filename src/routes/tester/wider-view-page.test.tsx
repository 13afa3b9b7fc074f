import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { http, HttpResponse } from 'msw';
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { server, ok } from '../../../tests/msw/server';
import { renderWithProviders } from '../../../tests/render';
import { termsTemplate, testerDetail } from '../../../tests/fixtures/tester-detail';
import { FakeStream, FakeTrack } from '../../../tests/fixtures/media';
import ExaminingPage from './examining-page';
import { ModalHost } from '../../features/layout/components/modal-host';
import { ROOM_SCAN_MIN_SECONDS } from '../../features/wider-view/room-scan-steps';

// The examinee's side of the wider view (README "The wider view") on /examining: the entire screen shared (a
// window refused), the room scan before the exam, the share ending during the exam, a checker's request.

vi.mock('../../media/master', () => ({ startMaster: vi.fn(() => new Promise(() => undefined)) }));

/** What the person picks in the browser's picker, one entry per click. */
let picks: string[] = [];
let displayTracks: FakeTrack[] = [];
let reports: unknown[] = [];
let scans: unknown[] = [];
let statuses: number[] = [];
let widerView: Record<string, unknown>;
const examWindow = { closed: false, close: vi.fn() };

const state = (over: { screen?: object; room_scan?: object } = {}) => ({
  screen: { required: true, state: null, changed_at: null, ...over.screen },
  room_scan: { required: true, done: 0, current: null, ...over.room_scan },
  phone: { required: false },
});

beforeEach(() => {
  picks = [];
  displayTracks = [];
  reports = [];
  scans = [];
  statuses = [];
  widerView = state();
  examWindow.close.mockClear();
  vi.stubGlobal('MediaStream', FakeStream);
  Object.defineProperty(navigator, 'mediaDevices', {
    configurable: true,
    value: {
      getUserMedia: vi.fn(async () => new FakeStream([new FakeTrack('video'), new FakeTrack('audio')])),
      getDisplayMedia: vi.fn(async () => {
        const track = new FakeTrack('video', picks.shift() ?? 'monitor');
        displayTracks.push(track);
        return new FakeStream([track]);
      }),
    },
  });
  vi.spyOn(window, 'open').mockImplementation(() => examWindow as unknown as Window);
  server.use(
    ok('tester/detail', testerDetail({ status: 4 }), 'get'),
    ok('get_examining_term', termsTemplate('<p>受験上の注意本文</p>')),
    ok('matching', { matchings: [], matching_timeout: 5 }),
    ok('webrtc_message', { messages: [] }, 'get'),
    http.get('*/api/v1/tester/wider_view.php', () =>
      HttpResponse.json({ status: 200, message: 'OK', result: widerView }),
    ),
    http.post('*/api/v1/tester/screen_share.php', async ({ request }) => {
      const b = (await request.json()) as { state: 'shared' | 'ended' };
      reports.push(b);
      widerView = state({ screen: { state: b.state } });
      return HttpResponse.json({ status: 200, message: 'OK', result: widerView });
    }),
    http.post('*/api/v1/tester/room_scan.php', async ({ request }) => {
      const b = (await request.json()) as { action: string };
      scans.push(b);
      const done = b.action === 'done';
      return HttpResponse.json({
        status: 200,
        message: 'OK',
        result: {
          id: 31,
          status: done ? 'done' : 'scanning',
          requested_by_checker: false,
          requested_at: null,
          started_at: '2026-01-01T00:00:00.000+09:00',
          completed_at: done ? '2026-01-01T00:01:00.000+09:00' : null,
          record_id: null,
        },
      });
    }),
    ok('get_mc_token', { access_token: 't', window_open_url: '/demo-exam/?mc_token=t', expires_in: 60 }),
    http.post('*/api/v1/tester/status.php', async ({ request }) => {
      const b = (await request.json()) as { status: number };
      statuses.push(b.status);
      return HttpResponse.json({
        status: 200,
        message: 'OK',
        result: { tester_id: 7, test_id: 1, status: b.status, previous_status: 4, changed: true },
      });
    }),
    http.post('*/api/v1/:which/status.php', () =>
      HttpResponse.json({
        status: 200,
        message: 'OK',
        result: { test_id: 1, test_status: 0, exam_process: 0 },
      }),
    ),
  );
});
afterEach(() => {
  // The shared screen stays registered across renders (media objects live outside the store): ended, it no
  // longer counts as shared.
  displayTracks.forEach((t) => t.stop());
  vi.useRealTimers();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

const render = () =>
  renderWithProviders(
    <>
      <ExaminingPage />
      <ModalHost />
    </>,
    { actor: 1 },
  );

/** Shares the screen from the step's button and waits until the page says it is shared. */
async function share(user: ReturnType<typeof userEvent.setup>) {
  await user.click(await screen.findByTestId('screen-share-button'));
  await waitFor(() =>
    expect(screen.getByTestId('screen-share-state')).toHaveTextContent('画面全体を共有しています。'),
  );
}

// Several round trips and a countdown each: longer than Vitest's 5 s when the machine is busy.
describe('/examining with the wider view', { timeout: 20_000 }, () => {
  it('takes the entire screen only, then the room scan, and only then opens the exam system', async () => {
    const user = userEvent.setup({ advanceTimers: (ms) => vi.advanceTimersByTime(ms) });
    vi.useFakeTimers({ shouldAdvanceTime: true });
    render();
    await user.click(await screen.findByLabelText('受験上の注意を確認し、同意します'));
    const login = screen.getByTestId('exam-login');
    expect(login).toBeDisabled();
    expect(screen.getByTestId('exam-blocked')).toHaveTextContent('画面全体を共有してください');

    // A window is not the screen: refused, its capture stopped, nothing reported.
    picks = ['window'];
    await user.click(screen.getByTestId('screen-share-button'));
    expect(await screen.findByTestId('screen-share-error')).toHaveTextContent(
      'ウィンドウまたはタブが選ばれました。「画面全体」を選んで共有してください。',
    );
    expect(displayTracks[0]!.readyState).toBe('ended');
    expect(reports).toEqual([]);

    await share(user);
    expect(reports).toEqual([{ state: 'shared', surface: 'monitor' }]);
    expect(displayTracks[1]!.contentHint).toBe('detail');
    expect(login).toBeDisabled();
    expect(screen.getByTestId('exam-blocked')).toHaveTextContent('ルームスキャンを実施してください');

    // The guided scan: instructions, begin, the countdown with the current step, stop once the room is shown.
    await user.click(screen.getByTestId('room-scan-open'));
    const dialog = await screen.findByRole('dialog', { name: 'ルームスキャン' });
    expect(
      within(dialog)
        .getAllByRole('listitem')
        .map((li) => li.textContent),
    ).toEqual([
      'カメラをゆっくり360度回して、部屋全体を映してください。',
      '机の上を映してください。',
      'カメラを下に向けて、机の下を映してください。',
    ]);
    await user.click(within(dialog).getByTestId('room-scan-begin'));
    // The press carries its own token: a scan an earlier page left under way is closed as interrupted.
    await waitFor(() => expect(scans).toEqual([{ action: 'start', attempt: expect.any(String) }]));
    const stop = await within(dialog).findByTestId('room-scan-stop');
    expect(stop).toBeDisabled();
    expect(within(dialog).getAllByRole('listitem')[0]).toHaveAttribute('aria-current', 'step');
    expect(within(dialog).getByRole('timer')).toHaveTextContent('残り 01:00');
    await act(async () => {
      await vi.advanceTimersByTimeAsync((ROOM_SCAN_MIN_SECONDS + 1) * 1000);
    });
    expect(within(dialog).getAllByRole('listitem')[1]).toHaveAttribute('aria-current', 'step');
    await user.click(stop);
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'ルームスキャン' })).toBeNull());
    // No room_scan recording for this sitting (its tester/detail has no is_room_scan): done without one.
    expect(scans).toEqual([
      { action: 'start', attempt: expect.any(String) },
      { action: 'done', scan_id: 31, record_id: null },
    ]);
    expect(screen.getByTestId('room-scan-state')).toHaveTextContent('ルームスキャンを実施しました（1 回）');

    expect(login).toBeEnabled();
    await user.click(login);
    await waitFor(() => expect(screen.getByTestId('exam-phase')).toHaveAttribute('data-phase', 'examing'));
  });

  it('holds the exam when the share ends: exam window closed, interrupted, resumed only after sharing again', async () => {
    widerView = state({ room_scan: { required: false } });
    const user = userEvent.setup();
    render();
    await user.click(await screen.findByLabelText('受験上の注意を確認し、同意します'));
    await share(user);
    await user.click(screen.getByTestId('exam-login'));
    await waitFor(() => expect(screen.getByTestId('exam-phase')).toHaveAttribute('data-phase', 'examing'));

    // The person presses the browser's "stop sharing".
    act(() => displayTracks[0]!.endByBrowser());
    const block = await screen.findByRole('dialog', { name: '画面の共有が終了しました' });
    await waitFor(() => expect(reports).toContainEqual({ state: 'ended' }));
    await waitFor(() =>
      expect(screen.getByTestId('exam-phase')).toHaveAttribute('data-phase', 'interrupted'),
    );
    expect(examWindow.close).toHaveBeenCalled();
    expect(statuses).toContain(6);
    expect(screen.getByTestId('exam-resume')).toBeDisabled();

    await user.click(within(block).getByTestId('screen-share-again'));
    await waitFor(() =>
      expect(screen.queryByRole('dialog', { name: '画面の共有が終了しました' })).toBeNull(),
    );
    expect(reports.at(-1)).toEqual({ state: 'shared', surface: 'monitor' });
    expect(screen.getByTestId('exam-resume')).toBeEnabled();
  });

  it('a page reloaded during the exam without its share holds the exam and says so to the server', async () => {
    widerView = state({ screen: { state: 'shared' }, room_scan: { required: false, done: 1 } });
    server.use(ok('tester/detail', testerDetail({ status: 5 }), 'get'));
    render();
    // The page first reads the sitting and the wider view, then tells the server (that it was reloaded: the
    // earlier page's screen recording is the server's to complete) and interrupts the exam.
    await waitFor(() => expect(reports).toEqual([{ state: 'ended', reloaded: true }]), { timeout: 3000 });
    await waitFor(() => expect(statuses).toContain(6), { timeout: 3000 });
    await waitFor(() =>
      expect(screen.getByTestId('exam-phase')).toHaveAttribute('data-phase', 'interrupted'),
    );
    expect(screen.getByRole('dialog', { name: '画面の共有が終了しました' })).toBeInTheDocument();
    expect(screen.getByTestId('exam-resume')).toBeDisabled();
  });

  it('a page reloaded while the exam was held for an ended share holds it still, with its dialog', async () => {
    widerView = state({ screen: { state: 'ended' }, room_scan: { required: false, done: 1 } });
    server.use(ok('tester/detail', testerDetail({ status: 6 }), 'get'));
    render();
    await waitFor(() =>
      expect(screen.getByTestId('exam-phase')).toHaveAttribute('data-phase', 'interrupted'),
    );
    expect(await screen.findByRole('dialog', { name: '画面の共有が終了しました' })).toBeInTheDocument();
    expect(screen.getByTestId('exam-resume')).toBeDisabled();
    // The server already knows the share ended: nothing to report again.
    expect(reports).toEqual([]);
  });

  it('shows the room scan at once when the checker asks for one during the exam', async () => {
    widerView = state({ screen: { required: false }, room_scan: { done: 1 } });
    server.use(ok('tester/detail', testerDetail({ status: 5 }), 'get'));
    render();
    await waitFor(() => expect(screen.getByTestId('exam-phase')).toHaveAttribute('data-phase', 'examing'));
    widerView = state({
      screen: { required: false },
      room_scan: {
        done: 1,
        current: {
          id: 32,
          status: 'requested',
          requested_by_checker: true,
          requested_at: '2026-01-01T00:00:00.000+09:00',
          started_at: null,
          completed_at: null,
          record_id: null,
        },
      },
    });
    server.use(
      ok(
        'webrtc_message',
        {
          messages: [
            {
              id: 40,
              send_type: 0,
              message_type: 3,
              kind: 'command',
              message: 'ROOM_SCAN_REQUESTED',
              created_at: '',
            },
          ],
        },
        'get',
      ),
    );
    const dialog = await screen.findByRole('dialog', { name: 'ルームスキャン' }, { timeout: 5000 });
    expect(within(dialog).getByTestId('room-scan-requested')).toHaveTextContent(
      '監視者がルームスキャンを依頼しました',
    );
    expect(within(dialog).getByTestId('room-scan-begin')).toBeEnabled();
  });
  it('a page reloaded during a scan starts it again with a token of its own, the same on a retry', async () => {
    // The earlier page left scan 33 under way; this page has not started anything.
    widerView = state({
      screen: { required: false },
      room_scan: {
        done: 1,
        current: {
          id: 33,
          status: 'scanning',
          requested_by_checker: true,
          requested_at: '2026-01-01T00:00:00.000+09:00',
          started_at: '2026-01-01T00:00:10.000+09:00',
          completed_at: null,
          record_id: null,
        },
      },
    });
    server.use(ok('tester/detail', testerDetail({ status: 5 }), 'get'));
    let failFirst = true;
    server.use(
      http.post('*/api/v1/tester/room_scan.php', async ({ request }) => {
        const b = (await request.json()) as { action: string };
        scans.push(b);
        if (failFirst) {
          failFirst = false;
          return HttpResponse.error();
        }
        return HttpResponse.json({
          status: 200,
          message: 'OK',
          result: {
            id: 34,
            status: 'scanning',
            requested_by_checker: true,
            requested_at: '2026-01-01T00:00:00.000+09:00',
            started_at: '2026-01-01T00:01:00.000+09:00',
            completed_at: null,
            record_id: null,
          },
        });
      }),
    );
    const user = userEvent.setup();
    render();
    const dialog = await screen.findByRole('dialog', { name: 'ルームスキャン' }, { timeout: 5000 });
    await user.click(within(dialog).getByTestId('room-scan-begin'));
    await within(dialog).findByTestId('room-scan-stop', undefined, { timeout: 8000 });
    expect(scans).toHaveLength(2);
    const [first, retry] = scans as { action: string; attempt?: string }[];
    expect(first).toEqual({ action: 'start', attempt: expect.stringMatching(/\S/) });
    expect(retry).toEqual(first);
  });
});
