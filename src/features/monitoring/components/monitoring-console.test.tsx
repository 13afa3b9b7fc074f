import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { fail, ok, server } from '../../../../tests/msw/server';
import { renderWithProviders } from '../../../../tests/render';
import type { Matching } from '@contract/matching';
import type { LiveFlag, LivePane } from '@contract/capture';
import { MonitoringConsole } from './monitoring-console';
import { ModalHost } from '../../layout/components/modal-host';
import { paneConnectionChanged } from '../monitoring-slice';
import { formatDateTime } from '../monitoring-format';

interface ViewerOpts {
  credentials: { channelName: string };
  clientId?: string;
  onStateChange: (s: string) => void;
  onStream: (s: MediaStream) => void;
  extraViews?: readonly string[];
  onViewStream?: (view: string, s: MediaStream) => void;
  onVideoStalled?: (stalled: boolean) => void;
}
const viewerMock = vi.hoisted(() => ({
  calls: [] as ViewerOpts[],
  closes: [] as ReturnType<typeof vi.fn>[],
}));

vi.mock('../../../media/viewer', () => ({
  openViewer: vi.fn((opts: ViewerOpts) => {
    viewerMock.calls.push(opts);
    const close = vi.fn();
    viewerMock.closes.push(close);
    opts.onStateChange('connecting');
    return Promise.resolve({ clientId: `c-${viewerMock.calls.length}`, channelName: 'ch', close });
  }),
}));

function matching(testerId: number, over: Partial<Matching> = {}): Matching {
  return {
    monitor_id: 100 + testerId,
    tester_id: testerId,
    test_id: 200 + testerId,
    checker_id: 9,
    file_name: '',
    matching_status: 2,
    login_id: `tester${testerId}`,
    ex_login_id: null,
    exam_name: `Exam ${testerId}`,
    tester_status: 2,
    rejected: 0,
    kicked: 0,
    matching_total_time: 10,
    matching_connected_time: 0,
    startup_parameters: {},
    matching_command: 0,
    signaling_channel: {
      region: 'ap-northeast-1',
      access_key_id: 'AK',
      secret_access_key: 'SK',
      session_token: 'ST',
      channel_name: `ch-${testerId}`,
      expiration: '2099-01-01T00:00:00Z',
    },
    ...over,
  };
}

let matchings: Matching[] = [];
// The live feed (checker/live_feed): a request with the current version waits until the test changes the
// feed (or a second passes), as the server's long poll does.
let feedPanes: LivePane[] = [];
let feedVersion = 1;
const feedWaiters: (() => void)[] = [];
/** Long polls held by the handler: answered before the file's environment goes (else their XHR answers land
 * after jsdom is torn down, an unhandled "ProgressEvent is not defined"). */
let feedsWaiting = 0;
function setFeed(panes: LivePane[]) {
  feedPanes = panes;
  feedVersion += 1;
  for (const w of feedWaiters.splice(0)) w();
}
function livePane(testerId: number, over: Partial<LivePane> = {}): LivePane {
  return {
    monitor_id: 100 + testerId,
    tester_id: testerId,
    test_id: 200 + testerId,
    capture_interval: 5,
    capture_type: 1,
    is_capture_show: true,
    sensitivity: 'standard',
    latest_capture: null,
    flag_count: 0,
    excused_count: 0,
    flags: [],
    ...over,
  };
}
function liveFlag(id: number, over: Partial<LiveFlag> = {}): LiveFlag {
  const at = new Date(Date.now() - 30_000).toISOString();
  return {
    id,
    flag: 'no_face',
    analysis_type: 'eye_rot',
    confidence: 0.99,
    started_at: at,
    ended_at: new Date(Date.now() - 25_000).toISOString(),
    excused: false,
    alert: true,
    image_url: `/img/flag-${id}.jpg`,
    ...over,
  };
}
let ended: unknown[] = [];
/** The AI identity check's status tester/detail gives per examinee (none when absent), and the detail reads. */
let aiAuthStatus: Record<number, number> = {};
let detailReads: number[] = [];
let messages: Record<
  number,
  { id: number; send_type: number; message_type: number; kind: string; message: string; created_at: string }[]
> = {};

function baseHandlers() {
  server.use(
    http.get('*/api/v1/checker/live_feed.php', async ({ request }) => {
      const asked = new URL(request.url).searchParams.get('version');
      if (asked === String(feedVersion)) {
        feedsWaiting += 1;
        await new Promise<void>((r) => {
          feedWaiters.push(r);
          setTimeout(r, 1000);
        }).finally(() => (feedsWaiting -= 1));
      }
      return HttpResponse.json({
        status: 200,
        message: 'OK',
        result: { version: String(feedVersion), server_time: new Date().toISOString(), panes: feedPanes },
      });
    }),
    http.post('*/api/v1/matching.php', () =>
      HttpResponse.json({ status: 200, message: 'OK', result: { matchings, matching_timeout: 5, ended } }),
    ),
    http.get('*/api/v1/tester/detail.php', ({ request }) => {
      const id = Number(new URL(request.url).searchParams.get('tester_id'));
      detailReads.push(id);
      return HttpResponse.json({
        status: 200,
        message: 'OK',
        result: {
          tester_id: id,
          test_id: 200 + id,
          name: `受験者${id}`,
          test_name: `試験${id}`,
          status: 2,
          head_shot_uri: null,
          id_card_uri: null,
          ai_auth:
            aiAuthStatus[id] === undefined
              ? null
              : { status: aiAuthStatus[id], face_retry: 0, id_card_retry: 0, ai_all_retry: 0, attempts: [] },
        },
      });
    }),
    ok('tester/head_shot', { url: null, updated_at: null }, 'get'),
    http.get('*/api/v1/webrtc_message.php', ({ request }) => {
      const u = new URL(request.url);
      const id = Number(u.searchParams.get('tester_id'));
      const since = Number(u.searchParams.get('since_id') ?? 0);
      const list = (messages[id] ?? []).filter((m) => m.id > since).sort((a, b) => b.id - a.id);
      return HttpResponse.json({ status: 200, message: 'OK', result: { messages: list } });
    }),
    ok(
      'marks',
      { list: [{ id: 1, message: 'よそ見', order_id: 1, label: 'A', display: 1, score: 10 }] },
      'get',
    ),
    ok(
      'fixed_notifications',
      { list: [{ id: 1, message: 'カメラを確認してください。', order_id: 1 }] },
      'get',
    ),
    ok(
      'tester/monitor_activate_list',
      {
        monitors: [
          {
            monitor_id: 9,
            login_id: 'user2',
            name: 'c',
            activation: true,
            matching_count: 1,
            last_poll_at: null,
            online: true,
          },
        ],
      },
      'get',
    ),
  );
}

beforeEach(() => {
  feedPanes = [];
  // A long poll the last test left held is answered, not forgotten (it would stay held to the file's end).
  for (const w of feedWaiters.splice(0)) w();
  matchings = [matching(11)];
  ended = [];
  aiAuthStatus = {};
  detailReads = [];
  messages = {};
  viewerMock.calls.length = 0;
  viewerMock.closes.length = 0;
  baseHandlers();
});
afterEach(() => vi.clearAllMocks());
afterAll(async () => {
  vi.useRealTimers();
  // Release every held long poll (again, for one a released poll's page asked right after) until none is held.
  for (let i = 0; i < 40 && feedsWaiting > 0; i++) {
    for (const w of feedWaiters.splice(0)) w();
    await new Promise((r) => setTimeout(r, 50));
  }
  // The released answers reach their XHRs on the next turns.
  await new Promise((r) => setTimeout(r, 50));
});

async function renderConsole(lang: 'ja' | 'en' = 'ja') {
  const r = renderWithProviders(
    <>
      <MonitoringConsole />
      <ModalHost />
    </>,
    { actor: 2, lang },
  );
  await screen.findByTestId('monitor-pane-11');
  return r;
}

describe('MonitoringConsole', () => {
  it('shows one pane per matching with name, login id, exam name and unknown elapsed time', async () => {
    matchings = [matching(11), matching(12)];
    await renderConsole();
    const pane = screen.getByTestId('monitor-pane-11');
    expect(screen.getByTestId('monitor-pane-12')).toBeInTheDocument();
    expect(await within(pane).findByText('受験者11')).toBeInTheDocument();
    expect(within(pane).getByText('tester11')).toBeInTheDocument();
    // The exam's name (the sitting's test_name), labelled as such; the examinee's name is the heading.
    expect(within(pane).getByTestId('pane-test-name')).toHaveTextContent('試験11');
    expect(within(pane).getByTestId('pane-test-name').previousSibling).toHaveTextContent('試験名:');
    expect(within(pane).getByTestId('pane-elapsed')).toHaveTextContent('--:--:--');
    expect(screen.getByTestId('pane-count')).toHaveTextContent('2 / 5');
  });

  it('shows every connection state as text (connecting, live, reconnecting, lost)', async () => {
    const { store } = await renderConsole();
    const badge = () => within(screen.getByTestId('monitor-pane-11')).getByTestId('pane-connection');
    expect(badge()).toHaveTextContent('接続中');
    for (const [connection, text] of [
      ['live', 'ライブ'],
      ['reconnecting', '再接続中'],
      ['lost', '切断'],
    ] as const) {
      act(() => {
        store.dispatch(paneConnectionChanged({ testerId: 11, monitorId: 111, connection, at: Date.now() }));
      });
      expect(badge()).toHaveTextContent(text);
    }
    // Live started the elapsed clock.
    expect(within(screen.getByTestId('monitor-pane-11')).getByTestId('pane-elapsed')).toHaveTextContent(
      /00:00:0\d/,
    );
  });

  it("shows the ID card's and head shot's update times from tester/detail", async () => {
    server.use(
      http.get('*/api/v1/tester/detail.php', ({ request }) => {
        const id = Number(new URL(request.url).searchParams.get('tester_id'));
        return HttpResponse.json({
          status: 200,
          message: 'OK',
          result: {
            tester_id: id,
            test_id: 200 + id,
            name: `受験者${id}`,
            status: 2,
            head_shot_uri: '/img/h.png',
            id_card_uri: '/img/id.png',
            head_shot_updated_at: '2026-01-02T03:00:00.000Z',
            id_card_updated_at: '2026-01-02T03:04:05.000Z',
          },
        });
      }),
    );
    await renderConsole();
    const pane = screen.getByTestId('monitor-pane-11');
    // The enlarged pane shows the head shot and ID card (the compact one leaves them to the identity check).
    await userEvent.click(within(pane).getByRole('button', { name: '拡大' }));
    expect(screen.getByTestId('monitor-panes')).toHaveAttribute('data-enlarged', '11');
    const expected = formatDateTime('2026-01-02T03:04:05.000Z');
    await waitFor(() => expect(within(pane).getByTestId('id-card')).toHaveTextContent(expected));
    expect(within(pane).getByTestId('head-shot')).toHaveTextContent(
      formatDateTime('2026-01-02T03:00:00.000Z'),
    );
  });

  it('goes live when the viewer connects, and toggles sound', async () => {
    await renderConsole();
    await waitFor(() => expect(viewerMock.calls.length).toBe(1));
    act(() => viewerMock.calls[0]!.onStateChange('connected'));
    const pane = screen.getByTestId('monitor-pane-11');
    expect(within(pane).getByTestId('pane-connection')).toHaveTextContent('ライブ');
    const sound = within(pane).getByTestId('pane-sound');
    expect(sound).toHaveAccessibleName('音声オン');
    await userEvent.click(sound);
    expect(sound).toHaveAccessibleName('音声オフ');
  });

  it('says so while the connected camera sends no frames (a frozen picture), and live again when they come', async () => {
    await renderConsole();
    await waitFor(() => expect(viewerMock.calls.length).toBe(1));
    const viewer = viewerMock.calls[0]!;
    act(() => viewer.onStateChange('connected'));
    const pane = screen.getByTestId('monitor-pane-11');
    const badge = within(pane).getByTestId('pane-connection');
    act(() => viewer.onVideoStalled?.(true));
    expect(pane).toHaveAttribute('data-connection', 'stalled');
    expect(badge).toHaveTextContent('映像が届いていません');
    // In words for screen readers too: the badge is a polite status, and the video says what it shows.
    expect(badge).toHaveAttribute('role', 'status');
    expect(within(pane).getByTestId('pane-video')).toHaveAccessibleName(/映像が届いていません/);
    act(() => viewer.onVideoStalled?.(false));
    expect(pane).toHaveAttribute('data-connection', 'live');
    expect(badge).toHaveTextContent('ライブ');
  });

  it('names a stalled camera in English on an English console', async () => {
    await renderConsole('en');
    await waitFor(() => expect(viewerMock.calls.length).toBe(1));
    const viewer = viewerMock.calls[0]!;
    act(() => viewer.onStateChange('connected'));
    act(() => viewer.onVideoStalled?.(true));
    const pane = screen.getByTestId('monitor-pane-11');
    expect(within(pane).getByTestId('pane-connection')).toHaveTextContent('No video arriving');
  });

  it('shows the shared screen beside the camera when the sitting has it, and switches which is large', async () => {
    matchings = [matching(11, { startup_parameters: { is_screen_record: 1 } }), matching(12)];
    await renderConsole();
    await waitFor(() => expect(viewerMock.calls.length).toBe(2));
    const pane = screen.getByTestId('monitor-pane-11');
    // The sitting without the screen shows its camera alone.
    expect(within(screen.getByTestId('monitor-pane-12')).queryByTestId('pane-view-screen')).toBeNull();
    // The viewer asks for the screen after the camera on the same connection.
    expect(viewerMock.calls.every((c) => c.extraViews?.join() === 'screen')).toBe(true);
    const call = viewerMock.calls.find((c) => c.onViewStream)!;
    const views = within(pane).getByTestId('pane-views');
    expect(views).toHaveAttribute('data-main', 'camera');
    expect(within(pane).getByTestId('pane-view-status-screen')).toHaveTextContent('未接続');
    // A screen track arrives and frames flow: the view is live and shows that stream.
    const track = Object.assign(new EventTarget(), { muted: false, kind: 'video' });
    const stream = { getVideoTracks: () => [track], getTracks: () => [track] } as unknown as MediaStream;
    act(() => call.onViewStream!('screen', stream));
    expect(within(pane).getByTestId('pane-view-screen')).toHaveAttribute('data-status', 'live');
    expect(within(pane).queryByTestId('pane-view-status-screen')).toBeNull();
    expect((within(pane).getByTestId('pane-video-screen') as HTMLVideoElement).srcObject).toBe(stream);
    const screenVideo = within(pane).getByTestId('pane-video-screen');
    // The screen large, the camera small; the same <video> elements, only their places change.
    await userEvent.click(within(pane).getByRole('button', { name: '受験者11 の画面を大きく表示' }));
    expect(views).toHaveAttribute('data-main', 'screen');
    expect(within(pane).getByTestId('pane-view-screen')).toHaveClass('is-main');
    expect(within(pane).getByTestId('pane-video-screen')).toBe(screenVideo);
    expect(within(pane).getByLabelText('受験者11 の画面（ライブ）')).toBe(screenVideo);
    await userEvent.click(within(pane).getByRole('button', { name: '受験者11 のカメラを大きく表示' }));
    expect(views).toHaveAttribute('data-main', 'camera');
    // The share stops sending: the view says so.
    act(() => {
      track.muted = true;
      track.dispatchEvent(new Event('mute'));
    });
    expect(within(pane).getByTestId('pane-view-status-screen')).toHaveTextContent('未接続');
  });

  it(
    'asks for a room scan, follows it through its markers, and alerts when the screen share ends',
    { timeout: 20_000 },
    async () => {
      matchings = [
        matching(11, { startup_parameters: { is_screen_record: 1, is_room_scan: 1 } }),
        matching(12),
      ];
      const asked: unknown[] = [];
      server.use(
        http.post('*/api/v1/tester/room_scan_request.php', async ({ request }) => {
          asked.push(await request.json());
          return HttpResponse.json({
            status: 200,
            message: 'OK',
            result: {
              id: 5,
              status: 'requested',
              requested_by_checker: true,
              requested_at: '2026-01-01T00:00:00Z',
              started_at: null,
              completed_at: null,
              record_id: null,
            },
          });
        }),
      );
      await renderConsole();
      const pane = screen.getByTestId('monitor-pane-11');
      // A sitting without room scans has no such button.
      expect(
        within(screen.getByTestId('monitor-pane-12')).queryByTestId('pane-room-scan-request'),
      ).toBeNull();
      const ask = within(pane).getByRole('button', { name: '受験者11 にルームスキャンを依頼' });
      await userEvent.click(ask);
      await waitFor(() => expect(asked).toEqual([{ tester_id: 11 }]));
      expect(within(pane).getByTestId('pane-room-scan')).toHaveTextContent('ルームスキャン依頼中');
      expect(ask).toBeDisabled();

      const marker = (id: number, message: string, sendType = 1) => ({
        id,
        send_type: sendType,
        message_type: 3,
        kind: 'command',
        message,
        created_at: '2026-01-01T00:00:00Z',
      });
      messages[11] = [marker(1, 'ROOM_SCAN_REQUESTED', 0), marker(2, 'ROOM_SCAN_STARTED')];
      await waitFor(
        () => expect(within(pane).getByTestId('pane-room-scan')).toHaveTextContent('ルームスキャン中'),
        { timeout: 5000 },
      );
      messages[11] = [...messages[11], marker(3, 'ROOM_SCAN_DONE'), marker(4, 'SCREEN_SHARE_ENDED')];
      await waitFor(
        () => expect(within(pane).getByTestId('pane-room-scan')).toHaveTextContent('ルームスキャン完了'),
        { timeout: 5000 },
      );
      expect(ask).toBeEnabled();
      // The screen's view says the share ended, and the alert names the pane.
      expect(within(pane).getByTestId('pane-view-status-screen')).toHaveTextContent('共有終了');
      expect(screen.getByTestId('console-alerts')).toHaveTextContent(
        '画面 1・受験者11 (tester11): 画面の共有を終了しました',
      );
    },
  );

  it('removes the pane when the matching disappears from the poll', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    try {
      await renderConsole();
      matchings = [];
      await act(async () => {
        await vi.advanceTimersByTimeAsync(5100);
      });
      await waitFor(() => expect(screen.queryByTestId('monitor-pane-11')).not.toBeInTheDocument());
      expect(screen.getByTestId('monitoring-empty')).toBeInTheDocument();
    } finally {
      vi.useRealTimers();
    }
  });

  it('says why a pane ended (logged out, kicked, finished …) on the next poll, until closed or matched again', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    try {
      await renderConsole();
      const endedAt = '2026-11-25T01:02:03.000Z';
      matchings = [];
      ended = [
        {
          monitor_id: 111,
          tester_id: 11,
          test_id: 211,
          login_id: 'tester11',
          exam_name: 'Exam 11',
          reason: 'logout',
          ended_at: endedAt,
        },
        {
          monitor_id: 112,
          tester_id: 12,
          test_id: 212,
          login_id: 'tester12',
          exam_name: 'Exam 12',
          reason: 'kicked',
          ended_at: endedAt,
        },
      ];
      await act(async () => {
        await vi.advanceTimersByTimeAsync(5100);
      });
      const list = await screen.findByTestId('ended-examinees');
      await waitFor(() => expect(within(list).getAllByRole('listitem')).toHaveLength(2));
      expect(screen.getByRole('heading', { name: '終了した受験者' })).toBeInTheDocument();
      expect(screen.getByTestId('ended-11')).toHaveTextContent('tester11');
      expect(screen.getByTestId('ended-11')).toHaveTextContent('ログアウトしました');
      expect(screen.getByTestId('ended-11')).toHaveTextContent(formatDateTime(endedAt));
      expect(screen.getByTestId('ended-12')).toHaveTextContent('強制退出しました');
      await userEvent.click(screen.getByRole('button', { name: 'tester12 の通知を閉じる' }));
      expect(screen.queryByTestId('ended-12')).toBeNull();
      // tester11 is matched again: its pane comes back and the notice goes.
      matchings = [matching(11, { monitor_id: 311 })];
      await act(async () => {
        await vi.advanceTimersByTimeAsync(5100);
      });
      await screen.findByTestId('monitor-pane-11');
      expect(screen.queryByTestId('ended-11')).toBeNull();
    } finally {
      vi.useRealTimers();
    }
  });

  it('shows the history error text in Japanese and English', async () => {
    server.use(fail('checkers/matching_histories', 500, 'boom', 'internal', 'get'));
    await renderConsole();
    await userEvent.click(screen.getAllByRole('button', { name: 'マッチング履歴' })[0]!);
    expect(await screen.findByTestId('history-error')).toHaveTextContent(
      'マッチング履歴の取得に失敗しました',
    );
  });

  it('shows the English history error text', async () => {
    server.use(fail('checkers/matching_histories', 500, 'boom', 'internal', 'get'));
    await renderConsole('en');
    await userEvent.click(screen.getAllByRole('button', { name: 'Matching history' })[0]!);
    expect(await screen.findByTestId('history-error')).toHaveTextContent('failed to get matching history');
  });

  it('lists the matching history', async () => {
    server.use(
      ok(
        'checkers/matching_histories',
        {
          users: [
            {
              exam_user_id: 11,
              test_id: 211,
              login_id: 'tester11',
              ex_login_id: null,
              exam_name: '受験者11',
              status: 5,
              status_string: 'EXAMING',
              updated_at: '2026-01-02T03:04:05Z',
              matched_at: null,
            },
          ],
        },
        'get',
      ),
    );
    await renderConsole();
    await userEvent.click(screen.getAllByRole('button', { name: 'マッチング履歴' })[0]!);
    const table = await screen.findByTestId('history-table');
    expect(within(table).getByText('tester11')).toBeInTheDocument();
    expect(within(table).getByText('受験中')).toBeInTheDocument();
  });

  it('saves a marking with notification and shows the success alert', async () => {
    let body: Record<string, unknown> | null = null;
    server.use(
      http.post('*/api/v1/tester/markings.php', async ({ request }) => {
        body = (await request.json()) as Record<string, unknown>;
        return HttpResponse.json({
          status: 200,
          message: 'OK',
          result: { alert: 'よそ見', url: null, marking_id: 1, marking_total_score: 10 },
        });
      }),
    );
    await renderConsole();
    await userEvent.click(
      within(screen.getByTestId('monitor-pane-11')).getByRole('button', { name: '監視情報を保存' }),
    );
    const modal = await screen.findByRole('dialog', { name: '監視情報の保存' });
    expect(within(modal).getByTestId('marking-no-still')).toBeInTheDocument();
    expect(within(modal).getByTestId('marking-time-lag')).toHaveTextContent('ミリ秒');
    await userEvent.selectOptions(within(modal).getByLabelText('不正の種類'), '1');
    await userEvent.click(within(modal).getByRole('button', { name: '保存' }));
    expect(
      await screen.findByText('監視情報を保存し、受験者に「よそ見」を通知しました。'),
    ).toBeInTheDocument();
    expect(body).toMatchObject({ tester_id: 11, mark: 1, notification: 1 });
    expect(typeof body!.time_lag).toBe('number');
  });

  it('shows an error alert when the marking cannot be saved', async () => {
    server.use(fail('tester/markings', 403, 'nope', 'forbidden'));
    await renderConsole();
    await userEvent.click(
      within(screen.getByTestId('monitor-pane-11')).getByRole('button', { name: '監視情報を保存' }),
    );
    const modal = await screen.findByRole('dialog', { name: '監視情報の保存' });
    await userEvent.selectOptions(within(modal).getByLabelText('不正の種類'), '1');
    await userEvent.click(within(modal).getByLabelText('通知しない'));
    await userEvent.click(within(modal).getByRole('button', { name: '保存' }));
    expect(await screen.findByText('監視情報の保存に失敗しました。')).toBeInTheDocument();
  });

  it('accepts an identity while the examinee is authenticating (tester/status 3)', async () => {
    messages[11] = [
      {
        id: 1,
        send_type: 1,
        message_type: 1,
        kind: 'command',
        message: 'AUTHENTICATING',
        created_at: '2026-01-01T00:00:00Z',
      },
    ];
    let statusBody: unknown = null;
    server.use(
      http.post('*/api/v1/tester/status.php', async ({ request }) => {
        statusBody = await request.json();
        return HttpResponse.json({
          status: 200,
          message: 'OK',
          result: { tester_id: 11, test_id: 211, status: 3, previous_status: 2, changed: true },
        });
      }),
    );
    await renderConsole();
    const pane = screen.getByTestId('monitor-pane-11');
    await userEvent.click(await within(pane).findByRole('button', { name: '本人確認' }));
    const modal = await screen.findByRole('dialog', { name: '本人確認' });
    await userEvent.click(within(modal).getByRole('button', { name: '承認' }));
    await waitFor(() =>
      expect(within(pane).getByTestId('pane-auth-state')).toHaveTextContent('本人確認済み'),
    );
    expect(statusBody).toEqual({ tester_id: 11, status: 3 });
  });

  it('rejects an identity (tester/rejected PUT)', async () => {
    messages[11] = [
      {
        id: 1,
        send_type: 1,
        message_type: 1,
        kind: 'command',
        message: 'AUTHENTICATING',
        created_at: '2026-01-01T00:00:00Z',
      },
    ];
    let rejectedBody: unknown = null;
    server.use(
      http.post('*/api/v1/tester/rejected.php', async ({ request }) => {
        rejectedBody = await request.json();
        return HttpResponse.json({
          status: 200,
          message: 'OK',
          result: { tester_id: 11, test_id: 211, rejected: 1 },
        });
      }),
    );
    await renderConsole();
    const pane = screen.getByTestId('monitor-pane-11');
    await userEvent.click(await within(pane).findByRole('button', { name: '本人確認' }));
    const modal = await screen.findByRole('dialog', { name: '本人確認' });
    await userEvent.click(within(modal).getByRole('button', { name: '否認' }));
    await waitFor(() => expect(within(pane).getByTestId('pane-auth-state')).toHaveTextContent('本人確認NG'));
    expect(rejectedBody).toEqual({ tester_id: 11, method: 'PUT' });
  });

  it('kicks out only after the confirmation', async () => {
    const kick = vi.fn();
    server.use(
      http.post('*/api/v1/tester/kick_out.php', async ({ request }) => {
        kick(await request.json());
        return HttpResponse.json({
          status: 200,
          message: 'OK',
          result: { tester_id: 11, test_id: 211, method: 'PUT', kicked: 1 },
        });
      }),
    );
    await renderConsole();
    const pane = screen.getByTestId('monitor-pane-11');
    await userEvent.click(within(pane).getByRole('button', { name: '強制退出' }));
    let confirmDialog = await screen.findByRole('dialog', { name: '強制退出の確認' });
    await userEvent.click(within(confirmDialog).getByRole('button', { name: 'キャンセル' }));
    expect(kick).not.toHaveBeenCalled();
    await waitFor(() =>
      expect(screen.queryByRole('dialog', { name: '強制退出の確認' })).not.toBeInTheDocument(),
    );
    await userEvent.click(within(pane).getByRole('button', { name: '強制退出' }));
    confirmDialog = await screen.findByRole('dialog', { name: '強制退出の確認' });
    await userEvent.click(within(confirmDialog).getByRole('button', { name: 'OK' }));
    await waitFor(() => expect(kick).toHaveBeenCalledWith({ tester_id: 11, method: 'PUT' }));
    await waitFor(() => expect(screen.queryByTestId('monitor-pane-11')).not.toBeInTheDocument());
  });

  it('sends a chat comment and shows messages newest first', async () => {
    messages[11] = [
      {
        id: 1,
        send_type: 1,
        message_type: 3,
        kind: 'message',
        message: 'こんにちは',
        created_at: '2026-01-01T00:00:00Z',
      },
      {
        id: 2,
        send_type: 0,
        message_type: 3,
        kind: 'message',
        message: 'はい',
        created_at: '2026-01-01T00:00:01Z',
      },
    ];
    server.use(
      http.post('*/api/v1/webrtc_message.php', async ({ request }) => {
        const b = (await request.json()) as { message: string; send_type: number };
        return HttpResponse.json({
          status: 200,
          message: 'OK',
          result: {
            messages: [
              {
                id: 3,
                send_type: b.send_type,
                message_type: 3,
                kind: 'message',
                message: b.message,
                created_at: '2026-01-01T00:00:02Z',
              },
            ],
          },
        });
      }),
    );
    await renderConsole();
    const pane = screen.getByTestId('monitor-pane-11');
    await userEvent.click(within(pane).getByRole('button', { name: 'チャット' }));
    const panel = await screen.findByRole('dialog', { name: 'チャット: 受験者11（画面 1）' });
    await within(panel).findByText('こんにちは');
    // The panel opens with the focus in the comment field.
    expect(within(panel).getByLabelText('コメント')).toHaveFocus();
    await userEvent.type(within(panel).getByLabelText('コメント'), '聞こえますか');
    await userEvent.click(within(panel).getByRole('button', { name: '送信' }));
    await within(panel).findByText('聞こえますか');
    const items = within(panel)
      .getAllByTestId('chat-item')
      .map((li) => li.textContent);
    expect(items[0]).toContain('聞こえますか');
    expect(items[2]).toContain('こんにちは');
  });

  it('a canned reply fills the comment field and is sent only with Send (arrow keys in the list send nothing)', async () => {
    const sent: string[] = [];
    server.use(
      http.post('*/api/v1/webrtc_message.php', async ({ request }) => {
        const b = (await request.json()) as { message: string; send_type: number };
        sent.push(b.message);
        return HttpResponse.json({ status: 200, message: 'OK', result: { messages: [] } });
      }),
    );
    await renderConsole();
    const pane = screen.getByTestId('monitor-pane-11');
    await userEvent.click(within(pane).getByRole('button', { name: 'チャット' }));
    const panel = await screen.findByRole('dialog', { name: 'チャット: 受験者11（画面 1）' });
    const canned = await within(panel).findByRole('combobox');
    canned.focus();
    await userEvent.selectOptions(canned, 'カメラを確認してください。');
    const field = within(panel).getByLabelText('コメント');
    expect(field).toHaveValue('カメラを確認してください。');
    expect(field).toHaveFocus();
    expect(sent).toEqual([]);
    await userEvent.click(within(panel).getByRole('button', { name: '送信' }));
    await waitFor(() => expect(sent).toEqual(['カメラを確認してください。']));
  });
});

describe('MonitoringConsole: live stills, alerts and the keyboard', () => {
  const authenticating = () => {
    messages[11] = [
      {
        id: 1,
        send_type: 1,
        message_type: 1,
        kind: 'command',
        message: 'AUTHENTICATING',
        created_at: '2026-01-01T00:00:00Z',
      },
    ];
  };

  it('shows the latest still, the flag badge with its count, the timeline and the newest flag with its still', async () => {
    feedPanes = [
      livePane(11, {
        latest_capture: {
          id: 5,
          captured_at: new Date().toISOString(),
          status: 'done',
          url: '/img/latest.jpg',
        },
        flag_count: 2,
        excused_count: 1,
        flags: [
          liveFlag(1, { flag: 'looking_away', alert: false, confidence: 0.6 }),
          liveFlag(2, { excused: true, alert: false }),
          liveFlag(3, { started_at: new Date(Date.now() - 10_000).toISOString() }),
        ],
      }),
    ];
    await renderConsole();
    const pane = screen.getByTestId('monitor-pane-11');
    const badge = await within(pane).findByTestId('pane-flag-badge');
    await waitFor(() => expect(badge).toHaveAttribute('data-count', '2'));
    expect(badge).toHaveTextContent('AIフラグ: 2 件（ほかに免除 1 件・採点対象外）');
    expect(badge).toHaveAttribute('data-alert', 'true');
    expect(within(pane).getByAltText(/受験者11 の最新のキャプチャ/)).toHaveAttribute(
      'src',
      '/img/latest.jpg',
    );
    const timeline = within(pane).getByTestId('pane-timeline');
    expect(timeline).toHaveAttribute('data-flags', '3');
    expect(timeline).toHaveTextContent('よそ見（60%）');
    expect(timeline).toHaveTextContent('免除：接続が切れていた間');
    const newest = within(pane).getByTestId('pane-flag-still');
    expect(newest).toHaveAttribute('data-flag', 'no_face');
    expect(within(newest).getByRole('img')).toHaveAttribute('src', '/img/flag-3.jpg');
    expect(newest).toHaveTextContent('顔なし');
  });

  it('alerts on a new AI flag: the alert line says which pane, the title counts it while the console is not looked at', async () => {
    const focus = vi.spyOn(document, 'hasFocus').mockReturnValue(false);
    try {
      feedPanes = [livePane(11, { flags: [liveFlag(1)] })];
      await renderConsole();
      await within(screen.getByTestId('monitor-pane-11')).findByTestId('pane-timeline');
      // A flag the examinee had before its pane appeared does not alert.
      expect(screen.getByTestId('console-alerts')).toBeEmptyDOMElement();
      act(() => setFeed([livePane(11, { flag_count: 2, flags: [liveFlag(1), liveFlag(2)] })]));
      const alerts = screen.getByTestId('console-alerts');
      await waitFor(() => expect(alerts).toHaveTextContent('画面 1・受験者11 (tester11): AIフラグ: 顔なし'));
      expect(document.title).toMatch(/^\(1\) /);
      // Below the sitting's sensitivity: no alert.
      act(() =>
        setFeed([livePane(11, { flags: [liveFlag(1), liveFlag(2), liveFlag(3, { alert: false })] })]),
      );
      await waitFor(() => expect(screen.getByTestId('pane-timeline')).toHaveAttribute('data-flags', '3'));
      expect(within(alerts).getAllByRole('listitem')).toHaveLength(1);
      // Coming back to the console clears the title count; the alert stays listed.
      focus.mockReturnValue(true);
      act(() => void window.dispatchEvent(new Event('focus')));
      expect(document.title).not.toMatch(/^\(\d+\) /);
      expect(within(alerts).getAllByRole('listitem')).toHaveLength(1);
    } finally {
      focus.mockRestore();
    }
  });

  it('alerts on a chat message and an identity request, and shows desktop notifications while the tab is hidden', async () => {
    const shown: { title: string; body?: string }[] = [];
    class FakeNotification {
      static permission = 'granted';
      static requestPermission = vi.fn(async () => 'granted');
      onclick: unknown = null;
      constructor(title: string, o: { body?: string }) {
        shown.push({ title, body: o.body });
      }
      close() {}
    }
    vi.stubGlobal('Notification', FakeNotification);
    const hidden = vi.spyOn(document, 'visibilityState', 'get').mockReturnValue('hidden');
    const acks: string[] = [];
    server.use(
      http.post('*/api/v1/webrtc_message.php', async ({ request }) => {
        acks.push(((await request.json()) as { message: string }).message);
        return HttpResponse.json({ status: 200, message: 'OK', result: { messages: [] } });
      }),
    );
    try {
      await renderConsole();
      await waitFor(() => expect(screen.getByTestId('alert-notify-state')).toHaveTextContent('オン'));
      messages[11] = [
        {
          id: 1,
          send_type: 1,
          message_type: 3,
          kind: 'message',
          message: '質問があります',
          created_at: '2026-01-01T00:00:00Z',
        },
        {
          id: 2,
          send_type: 1,
          message_type: 1,
          kind: 'command',
          message: 'AUTHENTICATING',
          created_at: '2026-01-01T00:00:01Z',
        },
      ];
      const alerts = screen.getByTestId('console-alerts');
      await waitFor(() => expect(within(alerts).getAllByRole('listitem')).toHaveLength(2), { timeout: 5000 });
      expect(alerts).toHaveTextContent('画面 1・受験者11 (tester11): チャットを送信しました');
      expect(alerts).toHaveTextContent('画面 1・受験者11 (tester11): 本人確認を求めています');
      // The examinee's first message is acknowledged too (its chat was empty when the pane appeared).
      await waitFor(() => expect(acks).toContain('MESSAGE_RECEIVED'));
      expect(shown).toEqual(
        expect.arrayContaining([
          { title: '画面 1・受験者11 (tester11)', body: 'チャットを送信しました' },
          { title: '画面 1・受験者11 (tester11)', body: '本人確認を求めています' },
        ]),
      );
      // The chat button counts the unread message until the chat is opened.
      const chat = within(screen.getByTestId('monitor-pane-11')).getByTestId('pane-chat-button');
      expect(chat).toHaveAccessibleName('チャット（未読 1 件）');
      await userEvent.click(chat);
      await screen.findByRole('dialog', { name: 'チャット: 受験者11（画面 1）' });
      expect(chat).toHaveAccessibleName('チャット');
    } finally {
      hidden.mockRestore();
      vi.unstubAllGlobals();
    }
  });

  it('alerts when the sitting\'s phone camera is lost (README "Phone as a second camera")', async () => {
    const phone = (state: 'live' | 'lost') => ({
      state,
      since: new Date().toISOString(),
      camera: 'environment' as const,
      signaling_channel: null,
      ...(state === 'lost' ? { lost_reason: 'no_response' as const } : {}),
    });
    matchings = [matching(11, { startup_parameters: { is_phone_camera: 1 }, phone: phone('live') })];
    await renderConsole();
    const alerts = screen.getByTestId('console-alerts');
    expect(alerts).toBeEmptyDOMElement();
    matchings = [matching(11, { startup_parameters: { is_phone_camera: 1 }, phone: phone('lost') })];
    await waitFor(
      () =>
        expect(alerts).toHaveTextContent(
          '画面 1・受験者11 (tester11): スマートフォンのカメラとの接続が切れました',
        ),
      { timeout: 8000 },
    );
    // Still lost at the next poll: no second alert.
    await new Promise((r) => setTimeout(r, 5500));
    expect(within(alerts).getAllByRole('listitem')).toHaveLength(1);
  }, 20_000);

  it('views the phone beside the camera while it publishes, shows it lost, and views a rescanned phone again', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    try {
      const phoneChannel = {
        ...matching(11).signaling_channel!,
        channel_name: 'ch-11-phone',
        access_key_id: 'AK-phone',
      };
      const withPhone = (phone: Matching['phone']) => [
        matching(11, { startup_parameters: { is_phone_camera: 1 }, viewer_client_id: 'viewer-11', phone }),
      ];
      const nextPoll = () =>
        act(async () => {
          await vi.advanceTimersByTimeAsync(5100);
        });
      // Paired, not publishing yet: the phone's view is connecting, nothing views its channel.
      matchings = withPhone({
        state: 'connecting',
        since: '2026-01-01T00:00:00Z',
        camera: null,
        signaling_channel: null,
      });
      await renderConsole();
      const pane = screen.getByTestId('monitor-pane-11');
      const phoneView = () => within(pane).getByTestId('pane-view-phone');
      await waitFor(() => expect(viewerMock.calls).toHaveLength(1));
      expect(phoneView()).toHaveAttribute('data-status', 'connecting');
      expect(within(pane).getByTestId('pane-view-status-phone')).toHaveTextContent('接続中');

      // The phone publishes: the checker views the phone's channel with the matching's ClientId, phone only.
      const live = (since: string) =>
        withPhone({ state: 'live', since, camera: 'environment', signaling_channel: phoneChannel });
      matchings = live('2026-01-01T00:00:05Z');
      await nextPoll();
      await waitFor(() => expect(viewerMock.calls).toHaveLength(2));
      const phoneViewer = viewerMock.calls[1]!;
      expect(phoneViewer.credentials.channelName).toBe('ch-11-phone');
      expect(phoneViewer.clientId).toBe('viewer-11');
      expect(phoneViewer.extraViews).toBeUndefined();
      const track = Object.assign(new EventTarget(), { muted: false, kind: 'video' });
      const stream = { getVideoTracks: () => [track], getTracks: () => [track] } as unknown as MediaStream;
      act(() => {
        phoneViewer.onStream(stream);
        phoneViewer.onStateChange('connected');
      });
      expect(phoneView()).toHaveAttribute('data-status', 'live');
      expect(within(pane).queryByTestId('pane-view-status-phone')).toBeNull();
      expect((within(pane).getByTestId('pane-video-phone') as HTMLVideoElement).srcObject).toBe(stream);
      expect(within(pane).getByLabelText('受験者11 のスマートフォン（ライブ）')).toBeInTheDocument();
      // The camera's pane is untouched by the phone's viewer.
      expect(within(pane).getByTestId('pane-connection')).toHaveTextContent('接続中');
      // Polls while it stays live start nothing new.
      await nextPoll();
      expect(viewerMock.calls).toHaveLength(2);

      // The phone stops answering: its viewer is closed, the view says lost, an alert names the pane.
      matchings = withPhone({
        state: 'lost',
        since: '2026-01-01T00:01:00Z',
        lost_reason: 'no_response',
        camera: 'environment',
        signaling_channel: null,
      });
      await nextPoll();
      await waitFor(() => expect(phoneView()).toHaveAttribute('data-status', 'lost'));
      expect(viewerMock.closes[1]).toHaveBeenCalled();
      expect(within(pane).getByTestId('pane-view-status-phone')).toHaveTextContent('切断');
      expect(screen.getByTestId('console-alerts')).toHaveTextContent(
        '画面 1・受験者11 (tester11): スマートフォンのカメラとの接続が切れました',
      );

      // A new code scanned: the new phone publishes and is viewed again.
      matchings = live('2026-01-01T00:02:00Z');
      await nextPoll();
      await waitFor(() => expect(viewerMock.calls).toHaveLength(3));
      expect(viewerMock.calls[2]!.credentials.channelName).toBe('ch-11-phone');
      expect(phoneView()).toHaveAttribute('data-status', 'connecting');
      act(() => viewerMock.calls[2]!.onStateChange('connected'));
      expect(phoneView()).toHaveAttribute('data-status', 'live');

      // The phone's connection fails although the phone still publishes: the next poll views it again.
      act(() => viewerMock.calls[2]!.onStateChange('failed'));
      expect(phoneView()).toHaveAttribute('data-status', 'lost');
      await nextPoll();
      await waitFor(() => expect(viewerMock.calls).toHaveLength(4));
      expect(viewerMock.calls[3]!.credentials.channelName).toBe('ch-11-phone');
      // The phone published anew (its reload): the viewer starts again too.
      act(() => viewerMock.calls[3]!.onStateChange('connected'));
      matchings = live('2026-01-01T00:03:00Z');
      await nextPoll();
      await waitFor(() => expect(viewerMock.calls).toHaveLength(5));
      expect(viewerMock.closes[3]).toHaveBeenCalled();
    } finally {
      vi.useRealTimers();
    }
  }, 30_000);

  it('asks for the desktop-notification permission once, on a click', async () => {
    const ask = vi.fn(async () => 'denied');
    vi.stubGlobal(
      'Notification',
      Object.assign(function () {}, { permission: 'default', requestPermission: ask }),
    );
    try {
      await renderConsole();
      await userEvent.click(await screen.findByRole('button', { name: 'デスクトップ通知をオンにする' }));
      expect(ask).toHaveBeenCalledTimes(1);
      expect(screen.queryByRole('button', { name: 'デスクトップ通知をオンにする' })).toBeNull();
      expect(screen.getByTestId('alert-notify-state')).toHaveTextContent('ブロックされています');
    } finally {
      vi.unstubAllGlobals();
    }
  });

  it('mutes the alert sound and keeps the choice for the next visit', async () => {
    const first = await renderConsole();
    const sound = screen.getByTestId('alert-sound');
    expect(sound).toHaveTextContent('通知音: オン');
    await userEvent.click(sound);
    expect(sound).toHaveTextContent('通知音: オフ');
    expect(sound).toHaveAttribute('aria-pressed', 'false');
    first.unmount();
    await renderConsole();
    expect(screen.getByTestId('alert-sound')).toHaveTextContent('通知音: オフ');
  });

  it('keyboard: 1 focuses the pane, A asks to confirm and Enter accepts, M marks, C chats, V sound, E enlarges, Esc restores', async () => {
    authenticating();
    let statusBody: unknown = null;
    server.use(
      http.post('*/api/v1/tester/status.php', async ({ request }) => {
        statusBody = await request.json();
        return HttpResponse.json({
          status: 200,
          message: 'OK',
          result: { tester_id: 11, test_id: 211, status: 3, previous_status: 2, changed: true },
        });
      }),
    );
    matchings = [matching(11), matching(12)];
    await renderConsole();
    const pane = screen.getByTestId('monitor-pane-11');
    await within(pane).findByRole('button', { name: '本人確認' });
    await userEvent.keyboard('1');
    expect(pane).toHaveFocus();
    await userEvent.keyboard('a');
    const modal = await screen.findByRole('dialog', { name: '本人確認' });
    expect(within(modal).getByTestId('auth-confirm')).toHaveTextContent(
      '受験者11 の本人確認を承認しますか？',
    );
    await waitFor(() => expect(within(modal).getByRole('button', { name: '承認' })).toHaveFocus());
    await userEvent.keyboard('{Enter}');
    await waitFor(() =>
      expect(within(pane).getByTestId('pane-auth-state')).toHaveTextContent('本人確認済み'),
    );
    expect(statusBody).toEqual({ tester_id: 11, status: 3 });
    await waitFor(() => expect(screen.queryByRole('dialog', { name: '本人確認' })).toBeNull());

    // The focus came back to the page; the keys act on the selected pane.
    await userEvent.keyboard('m');
    const marking = await screen.findByRole('dialog', { name: '監視情報の保存' });
    expect(marking).toHaveTextContent('tester11');
    await userEvent.keyboard('{Escape}');
    await waitFor(() => expect(screen.queryByRole('dialog', { name: '監視情報の保存' })).toBeNull());

    await userEvent.keyboard('2');
    expect(screen.getByTestId('monitor-pane-12')).toHaveFocus();
    await userEvent.keyboard('c');
    expect(await screen.findByRole('dialog', { name: /チャット: 受験者12（画面 2）/ })).toBeInTheDocument();
    await userEvent.keyboard('{Escape}');
    await waitFor(() => expect(screen.queryByRole('dialog', { name: /チャット/ })).toBeNull());

    await userEvent.keyboard('2v');
    expect(within(screen.getByTestId('monitor-pane-12')).getByTestId('pane-sound')).toHaveAccessibleName(
      '音声オフ',
    );
    await userEvent.keyboard('e');
    expect(screen.getByTestId('monitor-panes')).toHaveAttribute('data-enlarged', '12');
    await userEvent.keyboard('{Escape}');
    expect(screen.getByTestId('monitor-panes')).not.toHaveAttribute('data-enlarged');

    // R on a pane that asked for nothing says so instead of opening anything.
    await userEvent.keyboard('2r');
    expect(screen.getByTestId('shortcut-message')).toHaveTextContent('受験者12 は本人確認を求めていません。');
    expect(screen.queryByRole('dialog')).toBeNull();
    // Letters typed into a field are text, not shortcuts.
    await userEvent.keyboard('c');
    const panel = await screen.findByRole('dialog', { name: /チャット: 受験者12/ });
    await userEvent.keyboard('mack');
    expect(within(panel).getByLabelText('コメント')).toHaveValue('mack');
  });

  it('K asks to confirm the kick-out; ? lists the shortcuts in Japanese and English', async () => {
    const kick = vi.fn();
    server.use(
      http.post('*/api/v1/tester/kick_out.php', async ({ request }) => {
        kick(await request.json());
        return HttpResponse.json({
          status: 200,
          message: 'OK',
          result: { tester_id: 11, test_id: 211, method: 'PUT', kicked: 1 },
        });
      }),
    );
    const r = await renderConsole();
    await userEvent.keyboard('?');
    const help = await screen.findByRole('dialog', { name: 'キーボードショートカット' });
    for (const text of ['画面 1〜5 にフォーカス', '監視情報を保存（マーキング）', '強制退出（確認あり）'])
      expect(help).toHaveTextContent(text);
    await userEvent.keyboard('{Escape}');
    await waitFor(() =>
      expect(screen.queryByRole('dialog', { name: 'キーボードショートカット' })).toBeNull(),
    );
    await userEvent.keyboard('1k');
    const confirmDialog = await screen.findByRole('dialog', { name: '強制退出の確認' });
    expect(kick).not.toHaveBeenCalled();
    await userEvent.click(within(confirmDialog).getByRole('button', { name: 'OK' }));
    await waitFor(() => expect(kick).toHaveBeenCalledWith({ tester_id: 11, method: 'PUT' }));
    r.unmount();

    await renderConsole('en');
    await userEvent.keyboard('?');
    const en = await screen.findByRole('dialog', { name: 'Keyboard shortcuts' });
    expect(en).toHaveTextContent('Kick out (asks to confirm)');
    expect(en).toHaveTextContent('Accept the identity (confirm with Enter)');
  });
});

describe('MonitoringConsole: while the server cannot be reached', () => {
  /** Every call the console makes goes unanswered (the server is down; the media goes on peer to peer). */
  function serverDown() {
    server.use(http.all('*/api/*', () => HttpResponse.error()));
  }
  /** The server is back: the usual answers again (they take precedence over serverDown's). */
  const serverUp = () => baseHandlers();

  it('says so (polite status, in the console’s words) after the polls failed a while, and goes when one is answered', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    try {
      await renderConsole();
      const status = screen.getByTestId('server-status');
      expect(status).toHaveAttribute('role', 'status');
      expect(status).toHaveAttribute('aria-live', 'polite');
      expect(status).toBeEmptyDOMElement();
      serverDown();
      // One failed round is no outage yet.
      await act(async () => {
        await vi.advanceTimersByTimeAsync(2100);
      });
      expect(screen.queryByTestId('server-unreachable')).not.toBeInTheDocument();
      await act(async () => {
        await vi.advanceTimersByTimeAsync(5100);
      });
      expect(within(status).getByTestId('server-unreachable')).toHaveTextContent(
        'サーバーに接続できません。ライブ映像はこのまま表示されます。接続は自動で再試行しています。',
      );
      // The pane stays live meanwhile.
      expect(screen.getByTestId('monitor-pane-11')).toBeInTheDocument();

      serverUp();
      await act(async () => {
        await vi.advanceTimersByTimeAsync(5100);
      });
      expect(screen.queryByTestId('server-unreachable')).not.toBeInTheDocument();
      // A screen reader hears that it is back.
      expect(status).toHaveTextContent('サーバーとの接続が戻りました。');
    } finally {
      vi.useRealTimers();
    }
  });

  it('says it in English on an English console', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    try {
      await renderConsole('en');
      serverDown();
      await act(async () => {
        await vi.advanceTimersByTimeAsync(7200);
      });
      const notice = screen.getByTestId('server-unreachable');
      expect(within(notice).getByText('The server cannot be reached.')).toBeInTheDocument();
      expect(notice).toHaveTextContent('Live video continues. The console keeps retrying by itself.');
    } finally {
      vi.useRealTimers();
    }
  });

  it('a chat comment that cannot be sent says why and stays in the box', async () => {
    await renderConsole();
    await userEvent.click(
      within(screen.getByTestId('monitor-pane-11')).getByRole('button', { name: 'チャット' }),
    );
    const panel = await screen.findByRole('dialog', { name: 'チャット: 受験者11（画面 1）' });
    await userEvent.type(within(panel).getByLabelText('コメント'), '聞こえますか');
    server.use(http.post('*/api/v1/webrtc_message.php', () => HttpResponse.error()));
    await userEvent.click(within(panel).getByRole('button', { name: '送信' }));
    expect(
      await screen.findByText(
        'サーバーに接続できないため、メッセージを送信できませんでした。入力した内容は残っています。接続が戻ってから、もう一度送信してください。',
      ),
    ).toBeInTheDocument();
    expect(within(panel).getByLabelText('コメント')).toHaveValue('聞こえますか');
  });

  it('a marking that cannot be saved says why, and the modal keeps the mark and the choice to notify', async () => {
    server.use(http.post('*/api/v1/tester/markings.php', () => HttpResponse.error()));
    await renderConsole();
    await userEvent.click(
      within(screen.getByTestId('monitor-pane-11')).getByRole('button', { name: '監視情報を保存' }),
    );
    const modal = await screen.findByRole('dialog', { name: '監視情報の保存' });
    await userEvent.selectOptions(within(modal).getByLabelText('不正の種類'), '1');
    await userEvent.click(within(modal).getByLabelText('通知しない'));
    await userEvent.click(within(modal).getByRole('button', { name: '保存' }));
    const alert = await screen.findByText(/サーバーに接続できないため、監視情報を保存できませんでした。/);
    await userEvent.click(
      within(alert.closest('.modal-dialog') as HTMLElement).getByRole('button', { name: '閉じる' }),
    );
    expect(within(modal).getByLabelText('不正の種類')).toHaveValue('1');
    expect(within(modal).getByLabelText('通知しない')).toBeChecked();
    expect(within(modal).getByRole('button', { name: '保存' })).toBeEnabled();
  });

  it('says whether the AI let the examinee through, could not confirm them, or the sitting has no identity check', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    try {
      const ai = (tester_status: number) =>
        matching(11, { tester_status, startup_parameters: { is_auth: 1, is_ai_auth: 1 } });
      const noCheck = matching(12, { tester_status: 5, startup_parameters: { is_auth: 0 } });
      matchings = [ai(2), noCheck];
      await renderConsole();
      const state = (id: number) =>
        within(screen.getByTestId(`monitor-pane-${id}`)).getByTestId('pane-auth-state');
      await waitFor(() => expect(state(12)).toHaveTextContent('本人確認なし'));
      expect(state(11)).toHaveTextContent('本人確認前');
      // The AI's check passes: the next poll carries the new tester state, and the pane reads what the AI decided.
      aiAuthStatus[11] = 1;
      matchings = [ai(3), noCheck];
      await act(async () => {
        await vi.advanceTimersByTimeAsync(5100);
      });
      await waitFor(() => expect(state(11)).toHaveTextContent('AI本人確認済み'));
      expect(detailReads.filter((id) => id === 11)).toHaveLength(2);
      // Into the exam: not read again.
      matchings = [ai(5), noCheck];
      await act(async () => {
        await vi.advanceTimersByTimeAsync(5100);
      });
      expect(detailReads.filter((id) => id === 11)).toHaveLength(2);
      expect(state(11)).toHaveTextContent('AI本人確認済み');
    } finally {
      vi.useRealTimers();
    }
  });

  it('says the AI could not confirm an examinee let through for the manager’s review, in English too', async () => {
    aiAuthStatus[11] = 4;
    matchings = [matching(11, { tester_status: 5 })];
    await renderConsole('en');
    const pane = screen.getByTestId('monitor-pane-11');
    await waitFor(() =>
      expect(within(pane).getByTestId('pane-auth-state')).toHaveTextContent(
        "AI could not confirm (for the manager's review)",
      ),
    );
  });

  it('an identity decision and a kick-out that cannot be sent say why; the examinee is not shown as decided or gone', async () => {
    messages[11] = [
      {
        id: 1,
        send_type: 1,
        message_type: 1,
        kind: 'command',
        message: 'AUTHENTICATING',
        created_at: '2026-01-01T00:00:00Z',
      },
    ];
    server.use(
      http.post('*/api/v1/tester/status.php', () => HttpResponse.error()),
      http.post('*/api/v1/tester/kick_out.php', () => HttpResponse.error()),
    );
    await renderConsole();
    const pane = screen.getByTestId('monitor-pane-11');
    await userEvent.click(await within(pane).findByRole('button', { name: '本人確認' }));
    const modal = await screen.findByRole('dialog', { name: '本人確認' });
    await userEvent.click(within(modal).getByRole('button', { name: '承認' }));
    expect(
      await screen.findByText(
        'サーバーに接続できないため、本人確認の結果を送信できませんでした。接続が戻ってから、もう一度承認または否認してください。',
      ),
    ).toBeInTheDocument();
    expect(within(pane).getByTestId('pane-auth-state')).toHaveTextContent('本人確認待ち');
    const alert = screen
      .getByText(/サーバーに接続できないため、本人確認の結果/)
      .closest('.modal-dialog') as HTMLElement;
    await userEvent.click(within(alert).getByRole('button', { name: '閉じる' }));
    // The identity dialog is still open for another try.
    await userEvent.click(within(modal).getAllByRole('button', { name: '閉じる' }).at(-1)!);

    await userEvent.click(within(pane).getByRole('button', { name: '強制退出' }));
    const confirmDialog = await screen.findByRole('dialog', { name: '強制退出の確認' });
    await userEvent.click(within(confirmDialog).getByRole('button', { name: 'OK' }));
    expect(
      await screen.findByText(
        /サーバーに接続できないため、強制退出できませんでした。受験者はまだ退出していません。/,
      ),
    ).toBeInTheDocument();
    expect(screen.getByTestId('monitor-pane-11')).toBeInTheDocument();
  });
});
