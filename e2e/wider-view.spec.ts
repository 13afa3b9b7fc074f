import {
  expect,
  request as playwrightRequest,
  test,
  type APIRequestContext,
  type Browser,
  type BrowserContext,
  type Locator,
  type Page,
} from '@playwright/test';
import { expectNoAxeViolations } from './helpers';
import { LoginPage } from './pages/login-page';
import { LiveChecker } from './pages/live-checker';
import { RealExaminee } from './pages/monitoring-examinee';
import { TesterEnvSettingPage, TesterExaminingPage } from './pages/tester-pages';
import { apiToken, importAccounts } from './support/accounts';

// The wider view (README "The wider view"): an examinee shares the entire screen (a window is refused), does the
// guided room scan before the exam, and the checker sees the screen live beside the camera, decoding. During the
// exam the checker asks for a room scan, which the examinee's page shows at once; the share ending holds the exam
// until the screen is shared again. Afterwards a manager plays the camera, screen and room-scan recordings with
// the marking on the camera's and the screen's timelines. Axe in Japanese and English on every new view. Its
// own checker and examinees, in a serial project after the other live specs (playwright.config.ts).
//
// Chromium (--use-fake-ui-for-media-stream) answers getDisplayMedia without a picker and honours the page's
// `displaySurface` hint; a test hook asks once for a window instead, as a person choosing a window would. A page
// cannot press the browser's "stop sharing": the test stops the capture and fires the track's `ended` event,
// which is what Chromium does when the person presses it.

const PASSWORD = 'wider-Pass-2026';
const CHECKER = 'wv-checker';
const EXAMINEE = 'wv-exam-a';
const EXAMINEE_EN = 'wv-exam-b';
const URL_JA = 'wv-exam';
const URL_EN = 'wv-exam-en';

async function registerStartupUrls(request: APIRequestContext): Promise<void> {
  const admin = await apiToken(request, 'sysadmin01');
  // Small parts: the recordings of a few minutes are several parts each (the server's part size is the e2e env's).
  const s3 = await request.post('/__s3/config', { data: { minPartSize: 65_536 } });
  expect(s3.status()).toBe(200);
  const param = {
    is_mobile: 0,
    is_mc_startup: 1,
    is_proctor: 1,
    is_auth: 0,
    is_record: 1,
    is_voice_recording: 1,
    is_screen_record: 1,
    is_room_scan: 1,
    region: 'Online',
    exam_name: 'Wider view E2E',
    matching_timeout: 5,
    is_ai_auth: 0,
    group: 'DEMO',
  };
  for (const [key, lang] of [
    [URL_JA, 'ja'],
    [URL_EN, 'en'],
  ] as const) {
    const r = await request.post('/api/v1/shorten_url/insert.php', {
      headers: { Authorization: `Bearer ${admin}` },
      data: { url_key: key, actor: 1, param: { ...param, lang } },
    });
    expect([200, 409], await r.text()).toContain(r.status());
  }
}

/** Keeps every screen capture the page gets, and lets the test choose what the "person" picks next. */
async function hookScreenCapture(ctx: BrowserContext): Promise<void> {
  await ctx.addInitScript(() => {
    const w = window as unknown as { __displayStreams: MediaStream[]; __nextSurface: string | null };
    w.__displayStreams = [];
    w.__nextSurface = null;
    const md = navigator.mediaDevices;
    const original = md.getDisplayMedia.bind(md);
    md.getDisplayMedia = async (options?: DisplayMediaStreamOptions) => {
      const surface = w.__nextSurface;
      w.__nextSurface = null;
      const video = typeof options?.video === 'object' ? options.video : {};
      const s = await original(
        surface ? { ...options, video: { ...video, displaySurface: surface } } : options,
      );
      w.__displayStreams.push(s);
      return s;
    };
  });
}

/** The next screen the person picks is a window (or a tab). */
const pickNext = (page: Page, surface: 'window' | 'browser') =>
  page.evaluate((s) => {
    (window as unknown as { __nextSurface: string }).__nextSurface = s;
  }, surface);

/** What Chromium does when the person presses "stop sharing": the capture stops and the track fires `ended`. */
const stopSharingInBrowser = (page: Page) =>
  page.evaluate(() => {
    const streams = (window as unknown as { __displayStreams: MediaStream[] }).__displayStreams;
    const track = streams.at(-1)!.getVideoTracks()[0]!;
    track.stop();
    track.dispatchEvent(new Event('ended'));
  });

/** Frames the <video> has shown so far. */
const framesShown = (video: Locator) =>
  video.evaluate((v) => (v as HTMLVideoElement).getVideoPlaybackQuality().totalVideoFrames);

/** The examinee from its start-up URL to /examining (no identity check), landing on the spec's checker. */
async function toExamining(e: RealExaminee, checker: LiveChecker, browser: Browser, url: string) {
  await e.beforeNavigation(browser, hookScreenCapture);
  e.page.on('dialog', (d) => void d.accept());
  await e.openToEnvSetting(browser, PASSWORD, `/s/${url}`);
  await checker.alone(async () => {
    await new TesterEnvSettingPage(e.page).agreeAndNext();
    await expect(e.page).toHaveURL(/\/examining$/, { timeout: 30_000 });
    await expect(checker.console_.paneOf(e.loginId)).toBeVisible({ timeout: 30_000 });
  });
  await expect(e.page.getByTestId('wider-view-steps')).toBeVisible();
  return checker.console_.testerIdOf(e.loginId);
}

/** Shares the entire screen from the step's button and waits for the page to say so. */
async function shareScreen(page: Page) {
  await page.getByTestId('screen-share-button').click();
  await expect(page.getByTestId('screen-share-step')).toHaveAttribute('data-status', 'shared', {
    timeout: 20_000,
  });
}

/** The room scan from the open dialog: begin, wait until the room has been shown, end it. */
async function doRoomScan(page: Page, scanState: Locator) {
  const dialog = page.getByRole('dialog', { name: 'ルームスキャン' });
  await dialog.getByTestId('room-scan-begin').click();
  await expect(dialog.getByRole('timer')).toBeVisible();
  await expect(scanState).toHaveAttribute('data-state', 'scanning', { timeout: 20_000 });
  const stop = dialog.getByTestId('room-scan-stop');
  await expect(stop).toBeEnabled({ timeout: 45_000 });
  await stop.click();
  await expect(dialog).toBeHidden({ timeout: 30_000 });
  await expect(scanState).toHaveAttribute('data-state', 'done', { timeout: 20_000 });
}

test.describe('the wider view: screen and room scan', () => {
  test.skip(!!process.env.E2E_NO_NETNS, 'WebRTC needs the loopback-only network namespace');
  test.describe.configure({ mode: 'serial' });

  const checker = new LiveChecker(CHECKER, PASSWORD);
  const examinee = new RealExaminee(EXAMINEE);
  const examineeEn = new RealExaminee(EXAMINEE_EN);
  let request: APIRequestContext;
  let testId = 0;

  test.beforeAll(async ({ browser }, testInfo) => {
    test.setTimeout(120_000);
    request = await playwrightRequest.newContext({ baseURL: testInfo.project.use.baseURL });
    await importAccounts(request, [
      [CHECKER, '広域監視者', 2, '', PASSWORD],
      [EXAMINEE, '画面受験者', 1, 'DEMO', PASSWORD],
      [EXAMINEE_EN, 'Screen Examinee', 1, 'DEMO', PASSWORD],
    ]);
    await registerStartupUrls(request);
    await checker.open(browser, request);
    // Granting replaces the context's permissions: without camera and microphone among them, Chromium gathers
    // no ICE candidates for the viewer.
    await checker.page.context().grantPermissions(['camera', 'microphone']);
  });

  test.afterAll(async () => {
    await examinee.close();
    await examineeEn.close();
    await checker.close().catch(() => undefined);
    await request.dispose();
  });

  test('the entire screen (a window refused) and the room scan before the exam; the checker sees the screen live', async ({
    browser,
  }) => {
    test.setTimeout(300_000);
    const testerId = await toExamining(examinee, checker, browser, URL_JA);
    const page = examinee.page;
    const exam = new TesterExaminingPage(page);
    await exam.agreeNotes();
    await expect(page.getByTestId('exam-login')).toBeDisabled();
    await expect(page.getByTestId('exam-blocked')).toHaveText(
      '試験システムにログインするには、画面全体を共有してください。',
    );
    await expectNoAxeViolations(page);

    // The person picks a window: refused, and the page says what to pick.
    await pickNext(page, 'window');
    await page.getByTestId('screen-share-button').click();
    await expect(page.getByTestId('screen-share-error')).toHaveText(
      'ウィンドウまたはタブが選ばれました。「画面全体」を選んで共有してください。',
    );
    const windowCapture = await page.evaluate(() => {
      const s = (window as unknown as { __displayStreams: MediaStream[] }).__displayStreams[0]!;
      const t = s.getVideoTracks()[0]!;
      return { label: t.label, state: t.readyState };
    });
    // Chromium's capture of a window ("window:…"), stopped by the page at once.
    expect(windowCapture.label).toMatch(/^window:/);
    expect(windowCapture.state).toBe('ended');

    // The entire screen: shared, live beside the camera on the checker's pane.
    await shareScreen(page);
    const pane = checker.console_.pane(testerId);
    await expect(pane.getByTestId('pane-view-screen')).toHaveAttribute('data-status', 'live', {
      timeout: 30_000,
    });
    const screenVideo = pane.getByTestId('pane-video-screen');
    await expect
      .poll(() => screenVideo.evaluate((v) => (v as HTMLVideoElement).videoWidth))
      .toBeGreaterThan(0);
    // The screen large, the camera small: both still decoding.
    await pane.getByRole('button', { name: '画面受験者 の画面を大きく表示' }).click();
    await expect(pane.getByTestId('pane-views')).toHaveAttribute('data-main', 'screen');
    const f0 = await framesShown(screenVideo);
    await expect.poll(() => framesShown(screenVideo), { timeout: 15_000 }).toBeGreaterThan(f0 + 5);
    const c0 = await framesShown(pane.getByTestId('pane-video'));
    await expect
      .poll(() => framesShown(pane.getByTestId('pane-video')), { timeout: 15_000 })
      .toBeGreaterThan(c0 + 5);
    await expectNoAxeViolations(checker.page);

    // The room scan before the exam: the checker sees it under way, then done.
    await expect(page.getByTestId('exam-blocked')).toHaveText(
      '試験システムにログインするには、ルームスキャンを実施してください。',
    );
    await page.getByTestId('room-scan-open').click();
    const dialog = page.getByRole('dialog', { name: 'ルームスキャン' });
    await expect(dialog.getByRole('listitem')).toHaveCount(3);
    await expectNoAxeViolations(page);
    await doRoomScan(page, pane.getByTestId('pane-room-scan'));
    await expect(pane.getByTestId('pane-room-scan')).toHaveText('ルームスキャン完了');

    // Now the exam opens.
    await expect(page.getByTestId('exam-login')).toBeEnabled();
    await exam.openExamSystem();
    testId = Number(
      (
        (await (
          await request.get(`/api/v1/tester/detail.php?tester_id=${testerId}`, {
            headers: { Authorization: `Bearer ${await apiToken(request, 'manager01')}` },
          })
        ).json()) as { result: { test_id: number } }
      ).result.test_id,
    );
    expect(testId).toBeGreaterThan(0);
  });

  test('during the exam: a marking, the checker’s room scan request shown at once, and the share ending holds the exam', async () => {
    test.setTimeout(300_000);
    const page = examinee.page;
    const testerId = await checker.console_.testerIdOf(EXAMINEE);
    const pane = checker.console_.pane(testerId);
    await checker.console_.saveMarking(testerId, false);

    // The checker asks for a room scan: the examinee's page shows the instructions at once.
    await pane.getByRole('button', { name: '画面受験者 にルームスキャンを依頼' }).click();
    await expect(pane.getByTestId('pane-room-scan')).toHaveText('ルームスキャン依頼中');
    const dialog = page.getByRole('dialog', { name: 'ルームスキャン' });
    await expect(dialog.getByTestId('room-scan-requested')).toBeVisible({ timeout: 15_000 });
    await doRoomScan(page, pane.getByTestId('pane-room-scan'));

    // The person stops sharing: the exam is held, the exam window closed, the checker told.
    await stopSharingInBrowser(page);
    const block = page.getByRole('dialog', { name: '画面の共有が終了しました' });
    await expect(block).toBeVisible();
    await expect(page.getByTestId('exam-phase')).toHaveAttribute('data-phase', 'interrupted', {
      timeout: 20_000,
    });
    await expect(page.getByTestId('exam-resume')).toBeDisabled();
    await expect(pane.getByTestId('pane-view-screen')).toHaveAttribute('data-status', 'ended', {
      timeout: 20_000,
    });
    await expect(checker.page.getByTestId('console-alerts')).toContainText('画面の共有を終了しました');
    await expectNoAxeViolations(page);

    // The examinee reloads while held: still held, with the same dialog; the checker still reads "ended".
    await page.reload();
    await expect(block).toBeVisible({ timeout: 30_000 });
    await expect(page.getByTestId('exam-phase')).toHaveAttribute('data-phase', 'interrupted', {
      timeout: 20_000,
    });
    await expect(page.getByTestId('exam-resume')).toBeDisabled();
    await expect(pane.getByTestId('pane-view-screen')).toHaveAttribute('data-status', 'ended');
    // Long enough for the checker's viewer to have met the reloaded page.
    await expect(pane.getByTestId('pane-connection')).toHaveAttribute('data-connection', 'live', {
      timeout: 30_000,
    });
    await expect(pane.getByTestId('pane-view-screen')).toHaveAttribute('data-status', 'ended');

    // Shared again: the exam resumes; the checker sees the screen again.
    await block.getByTestId('screen-share-again').click();
    await expect(block).toBeHidden({ timeout: 20_000 });
    await expect(page.getByTestId('exam-resume')).toBeEnabled();
    const popup = page.waitForEvent('popup');
    await page.getByTestId('exam-resume').click();
    await popup;
    await expect(page.getByTestId('exam-phase')).toHaveAttribute('data-phase', 'examing');
    await expect(pane.getByTestId('pane-view-screen')).toHaveAttribute('data-status', 'live', {
      timeout: 30_000,
    });
    // Decoding: frames advance over a second (measured on one element: after the reload the viewer may put the
    // screen on a new one, whose count starts again).
    const screenVideo = pane.getByTestId('pane-video-screen');
    await expect
      .poll(
        async () => {
          const f0 = await framesShown(screenVideo);
          await checker.page.waitForTimeout(1000);
          return (await framesShown(screenVideo)) - f0;
        },
        { timeout: 30_000 },
      )
      .toBeGreaterThan(5);

    await new TesterExaminingPage(page).finish();
    await expect(page).toHaveURL(/\/exam-end$/, { timeout: 30_000 });
  });

  test('a manager plays the camera, screen and room-scan recordings, with the marking on each running recording', async ({
    browser,
  }) => {
    test.setTimeout(240_000);
    expect(testId).toBeGreaterThan(0);
    const manager = await apiToken(request, 'manager01');
    // Every recording completed and its duration fixed: the camera before and after the reload, two screen
    // shares, two scans.
    await expect
      .poll(
        async () => {
          const r = await request.get(`/api/v1/tester/detail.php?test_id=${testId}`, {
            headers: { Authorization: `Bearer ${manager}` },
          });
          const records = (
            (await r.json()) as { result: { records: { stream: string; movie_status: string }[] } }
          ).result.records;
          return records
            .filter((x) => x.movie_status === '02')
            .map((x) => x.stream)
            .sort()
            .join(',');
        },
        { timeout: 120_000, intervals: [2000] },
      )
      .toBe('camera,camera,room_scan,room_scan,screen,screen');

    for (const lang of ['ja', 'en'] as const) {
      const ctx = await browser.newContext();
      const page = await ctx.newPage();
      try {
        await page.goto(lang === 'en' ? '/?actor=3&lang=en' : '/s/demo-manager');
        await expect(page).toHaveURL(/\/login$/);
        await new LoginPage(page).login('manager01');
        await expect(page).toHaveURL(/\/examinees$/);
        await page.goto(`/examinees/${testId}`);
        const names =
          lang === 'ja' ? ['カメラ', '画面', 'ルームスキャン'] : ['Camera', 'Screen', 'Room scan'];
        const [camera, screen, scans] = names.map((n) => page.getByRole('region', { name: n, exact: true }));
        await expect(camera!.locator('video')).toHaveCount(2, { timeout: 30_000 });
        await expect(screen!.locator('video')).toHaveCount(2);
        await expect(scans!.locator('video')).toHaveCount(2);
        for (const v of await page.locator('[data-testid="recording-timeline"] video').all()) {
          await expect
            .poll(() => v.evaluate((x) => (x as HTMLVideoElement).readyState), { timeout: 30_000 })
            .toBeGreaterThanOrEqual(1);
          const d = await v.evaluate((x) => (x as HTMLVideoElement).duration);
          expect(Number.isFinite(d) && d > 0).toBe(true);
        }
        if (lang === 'ja') {
          // The marking lies on the camera's timeline and on the screen share running at that time.
          await expect(camera!.getByRole('button', { name: /へ移動$/ })).toHaveCount(1);
          await expect(screen!.getByRole('button', { name: /へ移動$/ })).toHaveCount(1);
          // The examinee log tells the wider view's story.
          const log = page.getByTestId('examinee-log');
          for (const e of [
            '画面の共有を開始',
            'ルームスキャンの依頼',
            'ルームスキャンを完了',
            '画面の共有を終了',
          ])
            await expect(log.filter({ hasText: e }).first()).toBeVisible();
        }
        await expectNoAxeViolations(page);
      } finally {
        await ctx.close();
      }
    }
  });

  test('in English: the examinee’s steps and room scan, the checker’s console with the screen beside the camera', async ({
    browser,
  }) => {
    test.setTimeout(240_000);
    await toExamining(examineeEn, checker, browser, URL_EN);
    const page = examineeEn.page;
    await expect(page.getByTestId('exam-blocked')).toHaveText(
      'Share your entire screen to log in to the exam system.',
    );
    await expectNoAxeViolations(page);
    await shareScreen(page);
    await page.getByTestId('room-scan-open').click();
    await expect(page.getByRole('dialog', { name: 'Room scan' })).toBeVisible();
    await expectNoAxeViolations(page);

    const en = new LiveChecker(CHECKER, PASSWORD);
    await en.open(browser, request, '/?actor=2&lang=en');
    try {
      const pane = en.console_.paneOf(EXAMINEE_EN);
      await expect(pane.getByTestId('pane-view-screen')).toBeVisible({ timeout: 30_000 });
      await expect(
        pane.getByRole('button', { name: 'Show the Screen of Screen Examinee large' }),
      ).toBeVisible();
      await expectNoAxeViolations(en.page);
    } finally {
      await en.close();
    }
  });
});
