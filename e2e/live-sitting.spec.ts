import { expect, test, type APIRequestContext, type Browser, type Page } from '@playwright/test';
import { LiveChecker } from './pages/live-checker';
import { MonitoringConsolePage } from './pages/monitoring-console';
import { LoginPage } from './pages/login-page';
import { RealExaminee } from './pages/monitoring-examinee';
import { TesterEnvSettingPage, TesterExaminingPage } from './pages/tester-pages';
import { RecordingPlayer } from './pages/manager-search';
import { expectNoAxeViolations } from './helpers';
import { apiToken as demoToken, importAccounts, type SpecAccount } from './support/accounts';

const apiToken = (request: APIRequestContext, loginId: string, password = PASSWORD) =>
  demoToken(request, loginId, password);

// What a real sitting meets off the happy path (README "How a sitting behaves"): chat on the exam page, the
// exam-system token, logout, kick-out with the recording kept, a crashed browser coming back, and the desktop
// proctoring application. Its own examinees and checker (imported as a system manager would), and it runs after
// every other spec (playwright.config.ts), so nobody else's checker takes its examinees.

const PASSWORD = 'live-Pass-2026';
const CHECKER = 'live-checker';
const EXAMINEES = ['live-a', 'live-b', 'live-c', 'live-d', 'live-e', 'live-f', 'live-g'] as const;

/**
 * Logs out the session a page of the spec holds (its sessionStorage), if any, before its browser goes: a sitting
 * left running would be handed, unwatched, to the next spec's checker and end on its console as unanswered.
 */
async function logOutPageSession(request: APIRequestContext, page: Page | undefined): Promise<void> {
  const token = await page
    ?.evaluate(
      () =>
        (JSON.parse(sessionStorage.getItem('session') ?? 'null') as { accessToken?: string } | null)
          ?.accessToken ?? null,
    )
    .catch(() => null);
  if (token)
    await request
      .post('/api/v1/logout.php', { headers: { Authorization: `Bearer ${token}` } })
      .catch(() => undefined);
}

/** The accounts of this spec. */
const importLiveAccounts = (request: APIRequestContext) =>
  importAccounts(request, [
    [CHECKER, 'ライブ監視者', 2, '', PASSWORD],
    ...EXAMINEES.map((id, i): SpecAccount => [id, `ライブ受験者${i + 1}`, 1, 'DEMO', PASSWORD]),
  ]);

/** An examinee from /s/demo-tester through the identity check (accepted on the console) to /examining. */
async function toExamPage(e: RealExaminee, checker: LiveChecker, browser: Browser): Promise<number> {
  await e.openToEnvSetting(browser, PASSWORD);
  await checker.alone(async () => {
    await e.startTransmission();
    await expect(checker.console_.paneOf(e.loginId)).toBeVisible({ timeout: 30_000 });
  });
  const testerId = await checker.console_.testerIdOf(e.loginId);
  await e.requestCheck();
  await expect(checker.console_.pane(testerId)).toHaveAttribute('data-auth', 'authenticating', {
    timeout: 15_000,
  });
  await checker.console_.decide(testerId, '承認');
  await expect(e.page).toHaveURL(/\/examining$/, { timeout: 20_000 });
  return testerId;
}

/** An examinee from /s/demo-tester through the identity check (accepted on the console) to a running exam. */
async function toRunningExam(
  e: RealExaminee,
  checker: LiveChecker,
  browser: Browser,
): Promise<{ testerId: number; exam: TesterExaminingPage; popup: Page }> {
  const testerId = await toExamPage(e, checker, browser);
  const exam = new TesterExaminingPage(e.page);
  await exam.agreeNotes();
  const popup = await exam.openExamSystem();
  return { testerId, exam, popup };
}

test.describe('a live sitting off the happy path', () => {
  test.skip(!!process.env.E2E_NO_NETNS, 'WebRTC needs the loopback-only network namespace');
  test.describe.configure({ mode: 'serial' });

  test.beforeAll(async ({ request }) => {
    await importLiveAccounts(request);
  });

  test('chat both ways on /examining, the exam-system token used once, and a logout the checker sees at once', async ({
    browser,
    request,
  }) => {
    test.setTimeout(240_000);
    const checker = new LiveChecker(CHECKER, PASSWORD);
    const e = new RealExaminee(EXAMINEES[0]);
    try {
      await checker.open(browser, request);
      // Counts the page's sounds: the cue for a monitor's message while the exam window has the focus.
      await e.beforeNavigation(browser, (ctx) =>
        ctx.addInitScript(() => {
          const w = window as unknown as { __cues: number };
          w.__cues = 0;
          const orig = AudioContext.prototype.createOscillator;
          AudioContext.prototype.createOscillator = function (this: AudioContext) {
            w.__cues += 1;
            return orig.call(this);
          };
        }),
      );
      const tokenAnswer = e.page.waitForResponse((r) => r.url().includes('/api/v1/get_mc_token.php'));
      const { testerId, popup } = await toRunningExam(e, checker, browser);

      // The demo exam page redeemed its token once: the examinee is signed in, the questions show.
      await expect(popup.locator('#who')).toContainText(`（${EXAMINEES[0]}）`, { timeout: 15_000 });
      await expect(popup.locator('#exam')).toBeVisible();
      expect(popup.url()).not.toContain('token=');
      // The same link a second time (copied, replayed) is refused and shows no questions.
      const url = ((await (await tokenAnswer).json()) as { result: { window_open_url: string } }).result
        .window_open_url;
      const replay = await popup.context().newPage();
      await replay.goto(url);
      await expect(replay.locator('#who')).toContainText('使用済みか、有効期限が切れています');
      await expect(replay.locator('#exam')).toBeHidden();
      await replay.close();

      // The monitor writes while the exam window has the focus: the exam page counts it, says it, sounds.
      // (Headless Chromium reports every page as focused, so the proctoring page is told it is not.)
      await popup.bringToFront();
      await e.page.evaluate(() => {
        document.hasFocus = () => false;
      });
      await checker.console_.chat(testerId, '手元を映してください');
      const chat = e.page.getByTestId('tester-chat');
      await expect(chat.getByTestId('chat-items')).toContainText('手元を映してください', { timeout: 15_000 });
      await expect(chat.getByTestId('chat-unread')).toHaveText('未読 1 件');
      await expect(chat.getByTestId('chat-announcement')).toHaveText(
        '監視者から未読のメッセージが 1 件あります。',
      );
      await expect.poll(() => e.page.title()).toMatch(/^\(1\) /);
      await expect
        .poll(() => e.page.evaluate(() => (window as unknown as { __cues: number }).__cues))
        .toBeGreaterThan(0);
      await expectNoAxeViolations(e.page);
      // The examinee answers from the exam page.
      await e.page.bringToFront();
      await e.page.evaluate(() => {
        document.hasFocus = () => true;
      });
      await e.page.locator('#chat-input').fill('はい、映しました');
      await e.page.locator('#chat-input').press('Enter');
      await expect(chat.getByTestId('chat-unread')).toBeHidden();
      await expect(await checker.console_.chatList(testerId)).toContainText('はい、映しました', {
        timeout: 15_000,
      });

      // The exam window closes (interruption: logout is offered again), and the examinee logs out from the
      // header: the checker's console says so within one poll.
      await popup.close();
      await expect(e.page.getByTestId('exam-phase')).toHaveAttribute('data-phase', 'interrupted', {
        timeout: 10_000,
      });
      await e.page.getByRole('button', { name: 'ログアウト' }).click();
      await expect(e.page).toHaveURL(/\/login$/, { timeout: 60_000 });
      const ended = checker.page.getByTestId(`ended-${testerId}`);
      await expect(ended).toContainText('ログアウトしました', { timeout: 10_000 });
      await expect(checker.console_.pane(testerId)).toBeHidden();
      await expectNoAxeViolations(checker.page);
    } finally {
      await e.close();
      await checker.close();
    }
  });

  test('kick-out: the page stops recording and says so; a manager plays the recording up to the kick', async ({
    browser,
    request,
  }) => {
    test.setTimeout(240_000);
    const checker = new LiveChecker(CHECKER, PASSWORD);
    const e = new RealExaminee(EXAMINEES[1]);
    try {
      await checker.open(browser, request);
      const { testerId } = await toRunningExam(e, checker, browser);
      await expect(e.page.getByTestId('recording-state')).toHaveText('録画中', { timeout: 20_000 });
      // Some seconds of video reach the store.
      await e.page.waitForTimeout(6000);
      await checker.console_.kickOut(testerId);
      await expect(e.page.getByTestId('exit-notice')).toContainText('強制的に退出', { timeout: 20_000 });
      await expect(e.page.getByTestId('exam-phase')).toHaveAttribute('data-phase', 'ended');
      await expect(e.page.getByTestId('exam-phase')).not.toContainText('受験中');
      await expect(e.page.getByTestId('recording-state')).toHaveText('録画を終了しました', {
        timeout: 60_000,
      });
      await expect(checker.page.getByTestId(`ended-${testerId}`)).toContainText('強制退出しました', {
        timeout: 10_000,
      });

      // The group's test manager opens the sitting: the recording plays, and its bytes are WebM.
      const manager = await apiToken(request, 'manager01', 'demo-pass');
      const detail = await request.get(`/api/v1/tester/detail.php?tester_id=${testerId}`, {
        headers: { Authorization: `Bearer ${manager}` },
      });
      const d = (await detail.json()) as { result: { test_id: number; records: { id: number }[] } };
      expect(d.result.records.length).toBeGreaterThan(0);
      // "録画を終了しました" shows as soon as the recorder stopped, while the page may still be sending the rest
      // and completing it (README: else the server completes it 30 s after the end): the manager asks again
      // until the recording is finished (409 recording_not_finished until then).
      const onetime = () =>
        request.get(`/api/v1/get_onetime_uri.php?record_id=${d.result.records[0]!.id}`, {
          headers: { Authorization: `Bearer ${manager}` },
        });
      await expect.poll(async () => (await onetime()).status(), { timeout: 60_000 }).toBe(200);
      const uri = await onetime();
      expect(uri.status(), await uri.text()).toBe(200);
      const { url } = ((await uri.json()) as { result: { url: string } }).result;
      const bytes = await (await request.get(url)).body();
      expect(bytes.subarray(0, 4).toString('hex')).toBe('1a45dfa3');
      expect(bytes.length).toBeGreaterThan(50_000);

      const mgr = await browser.newContext();
      const mpage = await mgr.newPage();
      await new LoginPage(mpage).open();
      await new LoginPage(mpage).login('manager01');
      await expect(mpage).toHaveURL(/\/examinees$/);
      await mpage.goto(`/examinees/${d.result.test_id}`);
      const player = new RecordingPlayer(mpage);
      await expect(player.video()).toBeVisible({ timeout: 30_000 });
      expect(await player.duration()).toBeGreaterThan(2);
      await mgr.close();
    } finally {
      await e.close();
      await checker.close();
    }
  });

  test('a crashed browser comes back: the same exam, the older window told it ended, live video on the checker again', async ({
    browser,
    request,
  }) => {
    test.setTimeout(300_000);
    const checker = new LiveChecker(CHECKER, PASSWORD);
    const first = new RealExaminee(EXAMINEES[2]);
    const second = new RealExaminee(EXAMINEES[2]);
    try {
      await checker.open(browser, request);
      const { testerId } = await toRunningExam(first, checker, browser);
      await expect.poll(() => checker.console_.videoWidth(testerId), { timeout: 30_000 }).toBeGreaterThan(0);
      const before = await checker.console_.pane(testerId).getAttribute('data-monitor-id');

      // The examinee opens the exam again in another browser (the first one hangs): straight back to the
      // running exam, not to the device checks or the identity check.
      await checker.alone(async () => {
        await second.loginOnly(browser, PASSWORD);
        await expect(second.page).toHaveURL(/\/examining$/, { timeout: 30_000 });
        await expect(second.page.getByTestId('exam-phase')).toHaveAttribute('data-phase', 'examing');
        // The older window learns at its next call that it no longer takes part, in words, and stops sending.
        const told = first.page
          .getByRole('dialog')
          .getByText('別のウィンドウまたはブラウザで再度ログインしたため');
        await expect(told).toBeVisible({ timeout: 30_000 });
        // The checker loses the old window's video and gets the new window, on the same console (the checker
        // who watched the sitting), as a new matching.
        await expect(checker.console_.pane(testerId)).not.toHaveAttribute('data-monitor-id', before!, {
          timeout: 90_000,
        });
        await expect(checker.console_.pane(testerId)).toHaveAttribute('data-connection', 'live', {
          timeout: 60_000,
        });
      });
      await expect(second.page.getByTestId('exam-reopen')).toBeVisible();
      await expect.poll(() => checker.console_.videoWidth(testerId), { timeout: 60_000 }).toBeGreaterThan(0);
      const f0 = await checker.console_.framesDecoded();
      await expect.poll(() => checker.console_.framesDecoded(), { timeout: 20_000 }).toBeGreaterThan(f0 + 10);

      await first.page.getByRole('dialog').getByRole('button').last().click();
      await expect(first.page).toHaveURL(/\/login$/);
      await expect(first.page.getByTestId('ended-reason')).toContainText(
        '受験は新しいウィンドウで続けてください',
      );
      await expectNoAxeViolations(second.page);

      // The examinee opens the exam system again from the new window.
      const popup = second.page.waitForEvent('popup');
      await second.page.getByTestId('exam-reopen').click();
      await expect((await popup).locator('#who')).toContainText(`（${EXAMINEES[2]}）`, { timeout: 15_000 });
    } finally {
      // Log the examinee out (the new window's session) before its browser goes: a sitting left running
      // would be handed, unwatched, to the next spec's checker and end on its console as unanswered.
      await logOutPageSession(request, second.page);
      await first.close();
      await second.close();
      await checker.close();
    }
  });

  test('a frozen camera: the pane stops saying live while the examinee sends no frames, and says it again when they come', async ({
    browser,
    request,
  }) => {
    test.setTimeout(180_000);
    const checker = new LiveChecker(CHECKER, PASSWORD);
    const e = new RealExaminee(EXAMINEES[4]);
    try {
      await checker.open(browser, request);
      await e.beforeNavigation(browser);
      await MonitoringConsolePage.hookPeerConnections(e.page);
      await e.openToEnvSetting(browser, PASSWORD);
      await checker.alone(async () => {
        await e.startTransmission();
        await expect(checker.console_.paneOf(e.loginId)).toBeVisible({ timeout: 30_000 });
      });
      const testerId = await checker.console_.testerIdOf(e.loginId);
      const pane = checker.console_.pane(testerId);
      const badge = pane.getByTestId('pane-connection');
      await expect(badge).toHaveAttribute('data-connection', 'live', { timeout: 30_000 });
      await expect.poll(() => checker.console_.videoWidth(testerId), { timeout: 30_000 }).toBeGreaterThan(0);
      // Moving video stays live (the frames are read once a second; a moving camera is never "stalled").
      await checker.page.waitForTimeout(5_000);
      await expect(badge).toHaveAttribute('data-connection', 'live');

      // The examinee's outgoing camera stalls: its sender sends no track (the connection and the microphone go on).
      const camera = (track: 'off' | 'on') =>
        e.page.evaluate(async (turn) => {
          const w = window as unknown as {
            __pcs: RTCPeerConnection[];
            __camera?: [RTCRtpSender, MediaStreamTrack][];
          };
          if (turn === 'off') {
            w.__camera = w.__pcs
              .filter((pc) => pc.connectionState === 'connected')
              .flatMap((pc) => pc.getSenders())
              .filter((sender) => sender.track?.kind === 'video')
              .map((sender) => [sender, sender.track!] as [RTCRtpSender, MediaStreamTrack]);
            await Promise.all(w.__camera.map(([sender]) => sender.replaceTrack(null)));
            return w.__camera.length;
          }
          await Promise.all((w.__camera ?? []).map(([sender, t]) => sender.replaceTrack(t)));
          return w.__camera?.length ?? 0;
        }, track);
      expect(await camera('off')).toBe(1);
      // Within a couple of seconds (the allowance is for a busy machine).
      await expect(badge).toHaveAttribute('data-connection', 'stalled', { timeout: 8_000 });
      await expect(badge).toContainText('映像が届いていません');
      // Not a lost connection: the pane stays, and it stays "no video" while nothing comes.
      await checker.page.waitForTimeout(4_000);
      await expect(badge).toHaveAttribute('data-connection', 'stalled');

      await camera('on');
      await expect(badge).toHaveAttribute('data-connection', 'live', { timeout: 10_000 });
      await expect(badge).toContainText('ライブ');
      const frames = () =>
        pane
          .getByTestId('pane-video')
          .evaluate((v) => (v as HTMLVideoElement).getVideoPlaybackQuality().totalVideoFrames);
      const f0 = await frames();
      await expect.poll(frames, { timeout: 10_000 }).toBeGreaterThan(f0 + 10);
    } finally {
      await logOutPageSession(request, e.page);
      await e.close();
      await checker.close();
    }
  });

  test('a reload mid-exam whose code comes slowly: the page says it is loading and offers nothing until the running exam shows', async ({
    browser,
    request,
  }) => {
    test.setTimeout(240_000);
    const checker = new LiveChecker(CHECKER, PASSWORD);
    const e = new RealExaminee(EXAMINEES[5]);
    try {
      await checker.open(browser, request);
      // The service worker would answer the page's code itself, beyond the test's reach: the network gives it.
      e.context = await browser.newContext({
        permissions: ['camera', 'microphone'],
        serviceWorkers: 'block',
      });
      e.page = await e.context.newPage();
      const { testerId, popup } = await toRunningExam(e, checker, browser);
      await expect(e.page.getByTestId('recording-state')).toHaveText('録画中', { timeout: 20_000 });
      const statuses: number[] = [];
      e.page.on('request', (r) => {
        if (r.url().includes('/api/v1/tester/status.php'))
          statuses.push(JSON.parse(r.postData() ?? '{}').status);
      });
      const logout = e.page.getByRole('button', { name: 'ログアウト' });
      const opening = e.page.getByTestId('exam-opening');
      // Every script of the page comes 2.5 s late, as on a slow line.
      await e.page.route('**/assets/*.js', async (route) => {
        await new Promise((r) => setTimeout(r, 2500));
        await route.continue().catch(() => undefined);
      });
      await e.page.reload({ waitUntil: 'commit' });
      // While the exam's machinery and its state are on their way: a status saying so, nothing to act on.
      await expect(opening).toBeVisible({ timeout: 60_000 });
      await expect(opening).toHaveAttribute('role', 'status');
      await expect(opening).toHaveText('受験の状態を確認しています…');
      await expect(logout).toHaveCount(0);
      await expect(e.page.getByTestId('exam-login')).toHaveCount(0);
      await expect(e.page.getByText('受験上の注意を確認してください。')).toHaveCount(0);
      await expect(e.page.getByText('録画：利用できません')).toHaveCount(0);
      await expectNoAxeViolations(e.page);
      // Then the running exam itself: still no logout (spec §2), the exam window kept, recording again.
      await expect(e.page.getByTestId('exam-phase')).toHaveAttribute('data-phase', 'examing', {
        timeout: 60_000,
      });
      await expect(opening).toHaveCount(0);
      await expect(logout).toHaveCount(0);
      expect(popup.isClosed()).toBe(false);
      await expect(e.page.getByTestId('recording-state')).toHaveText('録画中', { timeout: 60_000 });
      // The page never tried to move the sitting back to "before the exam".
      expect(statuses).not.toContain(4);
      await expect(checker.console_.pane(testerId)).toBeVisible({ timeout: 30_000 });
    } finally {
      await logOutPageSession(request, e.page);
      await e.close();
      await checker.close();
    }
  });

  test('a logout pressed on /examining and the tab closed at once: the checker is told the examinee logged out', async ({
    browser,
    request,
  }) => {
    test.setTimeout(180_000);
    const checker = new LiveChecker(CHECKER, PASSWORD);
    const e = new RealExaminee(EXAMINEES[6]);
    try {
      await checker.open(browser, request);
      const testerId = await toExamPage(e, checker, browser);
      const logout = e.page.getByRole('button', { name: 'ログアウト' });
      await expect(logout).toBeVisible({ timeout: 20_000 });
      const token = await e.page.evaluate(
        () => JSON.parse(sessionStorage.getItem('session') ?? '{}').accessToken as string,
      );
      // The exit first tells the checker and waits up to 2 s for its answer; the examinee does not wait. The
      // answer is held back here, so the exit surely runs its first steps when the tab goes.
      await e.page.route('**/api/v1/webrtc_message.php**', async (route) => {
        if (route.request().method() !== 'GET') return route.continue();
        await new Promise((r) => setTimeout(r, 5_000));
        return route.continue().catch(() => undefined);
      });
      await logout.click();
      await expect(logout).toBeDisabled();
      await e.page.close();
      // What the examinee did, not "the window was closed (maybe reloading)".
      const ended = checker.page.getByTestId(`ended-${testerId}`);
      await expect(ended).toContainText('ログアウトしました', { timeout: 15_000 });
      await expect(ended).not.toContainText('画面が閉じられました');
      // It stays so at the console's next polls.
      await checker.page.waitForTimeout(6_000);
      await expect(ended).toContainText('ログアウトしました');
      // And the session is over on the server (alive, an examinee may not read this: 403).
      await expect
        .poll(
          async () =>
            (
              await request.get('/api/v1/admin_permission.php', {
                headers: { Authorization: `Bearer ${token}` },
              })
            ).status(),
          { timeout: 10_000 },
        )
        .toBe(401);
    } finally {
      await e.close();
      await checker.close();
    }
  });

  test('the desktop proctoring application: required on every tester page, told of the exam, and closed politely', async ({
    browser,
    request,
  }) => {
    test.setTimeout(180_000);
    // A deployment that requires the application (its /config.json), and a short URL without identity check
    // or proctoring, so the exam starts without a checker.
    const admin = await apiToken(request, 'sysadmin01', 'demo-pass');
    const short = await request.post('/api/v1/shorten_url/insert.php', {
      headers: { Authorization: `Bearer ${admin}` },
      data: {
        url_key: 'e2e-desktop',
        actor: 1,
        param: {
          lang: 'ja',
          is_mc_startup: 1,
          is_proctor: 0,
          is_auth: 0,
          is_record: 0,
          exam_name: 'Desktop E2E',
        },
      },
    });
    expect([200, 409]).toContain(short.status());
    const app = { userAgentToken: 'ProctorDesktop/', setupUrl: 'https://setup.proctor.invalid/install' };
    const withConfig = async (ua: string) => {
      const ctx = await browser.newContext({
        userAgent: ua,
        permissions: ['camera', 'microphone'],
      });
      await ctx.route('**/config.json', async (route) => {
        const res = await route.fetch();
        const cfg = (await res.json()) as Record<string, unknown>;
        await route.fulfill({ response: res, json: { ...cfg, desktopApp: app } });
      });
      await ctx.route('https://setup.proctor.invalid/**', (route) =>
        route.fulfill({
          contentType: 'text/html',
          body: '<title>setup</title><h1>Install the application</h1>',
        }),
      );
      return ctx;
    };
    const baseUa = await (async () => {
      const p = await browser.newPage();
      const ua = await p.evaluate(() => navigator.userAgent);
      await p.close();
      return ua;
    })();

    // Without the application: the examinee who reaches a tester page is sent to its setup page.
    const plain = await withConfig(baseUa);
    const pp = await plain.newPage();
    await pp.goto('/s/e2e-desktop');
    await expect(pp).toHaveURL('https://setup.proctor.invalid/install', { timeout: 20_000 });
    await plain.close();

    // The application: its window runs the page with the token in the user agent and listens to the page.
    const desk = await withConfig(`${baseUa} ProctorDesktop/3.0`);
    await desk.addInitScript(() => {
      const w = window as unknown as { __app: { type: string; [k: string]: unknown }[] };
      w.__app = [];
      window.addEventListener('message', (e) => {
        const d = e.data as { source?: string; direction?: string; message?: { type: string } };
        if (d?.source === 'proctor-desktop-app' && d.direction === 'toApp' && d.message)
          w.__app.push(d.message);
      });
    });
    const page = await desk.newPage();
    const said = () => page.evaluate(() => (window as unknown as { __app: { type: string }[] }).__app);
    try {
      await page.goto('/s/e2e-desktop');
      await expect(page).toHaveURL(/\/login$/);
      await new LoginPage(page).login(EXAMINEES[3], PASSWORD);
      await expect(page).toHaveURL(/\/env-setting$/);
      // As an examinee does: the checks done, then the agreement (a CI run once clicked the box while the page
      // was still settling, and the click did not take).
      const env = new TesterEnvSettingPage(page);
      await env.expectReady();
      await env.agreeAndNext();
      await expect(page).toHaveURL(/\/examining$/, { timeout: 20_000 });
      const exam = new TesterExaminingPage(page);
      await exam.agreeNotes();
      const popup = await exam.openExamSystem();
      await expect
        .poll(said)
        .toContainEqual(expect.objectContaining({ type: 'sittingStarted', loginId: EXAMINEES[3] }));

      // The application says it closes: the page interrupts the exam and lets it close.
      await page.evaluate(() =>
        window.postMessage(
          { source: 'proctor-desktop-app', direction: 'fromApp', message: { type: 'closing' } },
          window.location.origin,
        ),
      );
      await expect.poll(said, { timeout: 20_000 }).toContainEqual({ type: 'closingReady' });
      await expect(page.getByTestId('exam-phase')).toHaveAttribute('data-phase', 'interrupted');
      await popup.close().catch(() => undefined);

      // Resumed and finished: the application hears the sitting ended.
      const again = page.waitForEvent('popup');
      await page.getByTestId('exam-resume').click();
      await (await again).close();
      await expect(page.getByTestId('exam-phase')).toHaveAttribute('data-phase', /examing|interrupted/);
      await exam.finish();
      await expect(page).toHaveURL(/\/exam-end$/, { timeout: 20_000 });
      expect(await said()).toContainEqual({
        type: 'sittingEnded',
        loginId: EXAMINEES[3],
        reason: 'finished',
      });
    } finally {
      await desk.close();
    }
  });
});
