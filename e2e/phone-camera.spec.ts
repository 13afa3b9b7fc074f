import { expect, test, type APIRequestContext, type Browser } from '@playwright/test';
import { expectNoAxeViolations } from './helpers';
import { LiveChecker } from './pages/live-checker';
import { RealExaminee } from './pages/monitoring-examinee';
import { decodeQr, PhoneCamera } from './pages/phone-camera';
import { LoginPage } from './pages/login-page';
import { TesterEnvSettingPage, TesterExaminingPage } from './pages/tester-pages';
import { apiToken, importAccounts, type SpecAccount } from './support/accounts';

// The examinee's phone as a second camera (README "Phone as a second camera"): the QR code on /examining is read
// from a screenshot, as a phone's camera reads it, and opened in a second browser context with a phone's
// viewport; the phone publishes its camera, the checker's console shows it decoding beside the camera, a lost
// phone is a state on both sides and an examinee-log event, and scanning again reconnects. In Japanese and
// English, axe-clean. Its own checker and examinees, one live spec at a time on the live specs’ own server (playwright.config.ts).

const PASSWORD = 'phone-Pass-2026';
const CHECKER = 'phone-checker';
const EXAMINEES = ['phone-a', 'phone-b'] as const;

async function prepare(request: APIRequestContext): Promise<void> {
  await importAccounts(request, [
    [CHECKER, 'スマホ監視者', 2, '', PASSWORD],
    ...EXAMINEES.map((id, i): SpecAccount => [id, `スマホ受験者${i + 1}`, 1, 'DEMO', PASSWORD]),
  ]);
  const admin = await apiToken(request, 'sysadmin01');
  for (const lang of ['ja', 'en'] as const) {
    const r = await request.post('/api/v1/shorten_url/insert.php', {
      headers: { Authorization: `Bearer ${admin}` },
      data: {
        url_key: `phone-${lang}`,
        actor: 1,
        param: {
          lang,
          is_mobile: 0,
          is_mc_startup: 1,
          is_proctor: 1,
          is_auth: 0,
          is_record: 1,
          is_voice_recording: 1,
          is_summary: 1,
          exam_name: 'Phone Camera Exam',
          max_rectime: 10800,
          matching_timeout: 5,
          is_ai_auth: 0,
          ai_idcard_type: '1,2,3',
          is_phone_camera: 1,
        },
      },
    });
    // Created once per server run (the spec may run again on the same server only in development).
    expect([200, 409], await r.text()).toContain(r.status());
  }
}

/** An examinee from the phone short URL to /examining (no identity check), watched by `checker`. */
async function toExamining(e: RealExaminee, checker: LiveChecker, browser: Browser, lang: 'ja' | 'en') {
  await e.openToEnvSetting(browser, PASSWORD, `/s/phone-${lang}`);
  await checker.alone(async () => {
    await new TesterEnvSettingPage(e.page).agreeAndNext();
    await expect(e.page).toHaveURL(/\/examining$/, { timeout: 30_000 });
    await expect(checker.console_.paneOf(e.loginId)).toBeVisible({ timeout: 30_000 });
  });
  return checker.console_.testerIdOf(e.loginId);
}

/** The sitting (test id) an examinee is in, as a manager reads it. */
async function testIdOf(request: APIRequestContext, testerId: number): Promise<number> {
  const manager = await apiToken(request, 'manager01');
  const r = await request.get(`/api/v1/tester/detail.php?tester_id=${testerId}`, {
    headers: { Authorization: `Bearer ${manager}` },
  });
  const id = ((await r.json()) as { result: { test_id: number } }).result.test_id;
  expect(id).toBeGreaterThan(0);
  return id;
}

/**
 * A manager's examinee detail, in Japanese and English: the camera's and the phone's recordings side by side, the
 * phone's completed (the rescanned phone's by its page; the replaced phone's by the server from the parts it
 * holds) and each playable.
 */
async function playPhoneRecordings(
  browser: Browser,
  request: APIRequestContext,
  testId: number,
): Promise<void> {
  const manager = await apiToken(request, 'manager01');
  const records = async () => {
    const r = await request.get(`/api/v1/tester/detail.php?test_id=${testId}`, {
      headers: { Authorization: `Bearer ${manager}` },
    });
    return ((await r.json()) as { result: { records: { stream: string; movie_status: string }[] } }).result
      .records;
  };
  // The rescanned phone's recording completed by its page (02), beside the camera's, and no phone recording
  // still open (the replaced phone's is completed by the server 30 s after the new pairing).
  await expect
    .poll(
      async () => {
        const all = await records();
        const done = all.filter((x) => x.movie_status === '02').map((x) => x.stream);
        const open = all.filter((x) => x.stream === 'phone' && ['00', '01'].includes(x.movie_status));
        return `${[...new Set(done)].sort().join(',')} open=${open.length}`;
      },
      { timeout: 120_000, intervals: [2000] },
    )
    .toBe('camera,phone open=0');
  const phones = (await records()).filter((x) => x.stream === 'phone' && x.movie_status === '02').length;
  for (const lang of ['ja', 'en'] as const) {
    const ctx = await browser.newContext();
    const page = await ctx.newPage();
    try {
      await page.goto(lang === 'en' ? '/?actor=3&lang=en' : '/s/demo-manager');
      await expect(page).toHaveURL(/\/login$/);
      await new LoginPage(page).login('manager01');
      await expect(page).toHaveURL(/\/examinees$/);
      await page.goto(`/examinees/${testId}`);
      const [camera, phone] = (lang === 'ja' ? ['カメラ', 'スマートフォン'] : ['Camera', 'Phone']).map((n) =>
        page.getByRole('region', { name: n, exact: true }),
      );
      await expect(camera!.locator('video')).toHaveCount(1, { timeout: 30_000 });
      await expect(phone!.locator('video')).toHaveCount(phones);
      for (const v of await phone!.locator('video').all()) {
        await expect
          .poll(() => v.evaluate((x) => (x as HTMLVideoElement).readyState), { timeout: 30_000 })
          .toBeGreaterThanOrEqual(1);
        const d = await v.evaluate((x) => (x as HTMLVideoElement).duration);
        expect(Number.isFinite(d) && d > 0).toBe(true);
      }
      if (lang === 'ja') {
        const log = page.getByTestId('examinee-log');
        for (const e of ['スマートフォンのカメラを接続', 'スマートフォンのカメラが応答しなくなった'])
          await expect(log.filter({ hasText: e }).first()).toBeVisible();
      }
      await expectNoAxeViolations(page);
    } finally {
      await ctx.close();
    }
  }
}

test.describe('the phone as a second camera', () => {
  test.skip(!!process.env.E2E_NO_NETNS, 'WebRTC needs the loopback-only network namespace');
  test.describe.configure({ mode: 'serial' });

  test.beforeAll(async ({ request }) => {
    await prepare(request);
  });

  test('paired by the QR code, the phone publishes; the checker sees it; lost and rescanned (Japanese)', async ({
    browser,
    request,
  }) => {
    test.setTimeout(480_000);
    const checker = new LiveChecker(CHECKER, PASSWORD);
    const e = new RealExaminee(EXAMINEES[0]);
    const phone = new PhoneCamera();
    const second = new PhoneCamera();
    try {
      await checker.open(browser, request);
      const testerId = await toExamining(e, checker, browser, 'ja');

      // The examinee's page: no phone yet, a QR code, and the exam cannot start.
      const panel = e.page.getByTestId('phone-panel');
      await expect(panel).toHaveAttribute('data-phone-state', 'waiting', { timeout: 20_000 });
      await expect(panel.getByTestId('phone-state')).toHaveText(
        'スマートフォンのカメラ: まだ接続されていません',
      );
      await e.page.locator('#exam-notes-agree').check();
      await expect(e.page.getByTestId('exam-login')).toBeDisabled();
      await expect(e.page.getByTestId('phone-blocks-start')).toBeVisible();
      await expectNoAxeViolations(e.page);

      // The phone reads the code and opens it.
      const url = await decodeQr(panel.getByRole('img', { name: 'スマートフォンで読み取るQRコード' }));
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/phone\?lang=ja#[A-Za-z0-9_-]{43}$/);
      await phone.open(browser, url);
      // The code leaves the phone's address bar before anything else runs.
      await expect.poll(() => phone.page.url()).not.toContain('#');
      await expect(phone.page.getByTestId('phone-paired-with')).toHaveText(
        `スマホ受験者1（${EXAMINEES[0]}）さんの試験と接続しました。`,
      );
      await expectNoAxeViolations(phone.page);
      await phone.choose('rear');
      await expect(phone.connection()).toHaveAttribute('data-connection', 'connected', { timeout: 30_000 });
      await expect.poll(() => phone.previewFrames(), { timeout: 15_000 }).toBeGreaterThan(5);
      await expectNoAxeViolations(phone.page);

      // The examinee's page: the phone sends video, the exam may start.
      await expect(panel).toHaveAttribute('data-phone-state', 'live', { timeout: 20_000 });
      await expect(panel.getByTestId('phone-state')).toHaveText(
        'スマートフォンのカメラ: 映像を送信しています（背面カメラ）',
      );
      await expect(panel.getByTestId('phone-qr')).toBeHidden();
      await expect(e.page.getByTestId('exam-login')).toBeEnabled();

      // The same code a second time (a photo of the screen): refused.
      const reuse = new PhoneCamera();
      await reuse.open(browser, url);
      await expect(reuse.page.getByTestId('phone-invalid')).toBeVisible({ timeout: 15_000 });
      await reuse.close();

      // The checker: the phone's view decodes beside the camera.
      const pane = checker.console_.pane(testerId);
      await expect(pane.getByTestId('pane-view-phone')).toHaveAttribute('data-status', 'live', {
        timeout: 30_000,
      });
      await expect
        .poll(() => checker.console_.viewFrames(testerId, 'phone'), { timeout: 30_000 })
        .toBeGreaterThan(10);
      await expect(phone.connection()).toHaveAttribute('data-watched', 'true', { timeout: 20_000 });
      await expectNoAxeViolations(checker.page);

      // Lost: the phone's network goes away; after three silent polls both sides say so.
      await phone.context.setOffline(true);
      await expect(pane.getByTestId('pane-view-phone')).toHaveAttribute('data-status', 'lost', {
        timeout: 40_000,
      });
      await expect(checker.page.getByTestId('console-alerts')).toContainText('スマートフォンのカメラ');
      await expect(panel).toHaveAttribute('data-phone-state', 'lost', { timeout: 20_000 });
      await expect(phone.connection()).toHaveAttribute('data-connection', 'reconnecting');
      await expectNoAxeViolations(e.page);

      // Rescanning (a new code, with another phone) reconnects; the first phone is told it was replaced.
      const again = await decodeQr(panel.getByRole('img', { name: 'スマートフォンで読み取るQRコード' }));
      expect(again).not.toBe(url);
      await second.open(browser, again);
      await second.choose('front');
      await expect(panel).toHaveAttribute('data-phone-state', 'live', { timeout: 30_000 });
      await expect(pane.getByTestId('pane-view-phone')).toHaveAttribute('data-status', 'live', {
        timeout: 40_000,
      });
      await phone.context.setOffline(false);
      await expect(phone.page.getByTestId('phone-replaced')).toBeVisible({ timeout: 30_000 });

      // The examinee log, as a manager reads it.
      const manager = await apiToken(request, 'manager01');
      const d = await request.get(`/api/v1/tester/detail.php?tester_id=${testerId}`, {
        headers: { Authorization: `Bearer ${manager}` },
      });
      const logs = ((await d.json()) as { result: { examinee_logs: { event: string; detail: string }[] } })
        .result.examinee_logs;
      expect(logs.filter((l) => l.event.startsWith('phone')).map((l) => `${l.event}:${l.detail}`)).toEqual([
        'phone_paired:',
        'phone_lost:no_response',
        'phone_paired:replaced',
      ]);

      // The exam runs and ends: the phone records its camera until the sitting ends, then sends the rest and
      // completes its recording; a manager plays it beside the camera in the examinee detail.
      await expect(second.page.getByTestId('phone-recording')).toHaveAttribute('data-state', 'recording', {
        timeout: 30_000,
      });
      const exam = new TesterExaminingPage(e.page);
      await exam.openExamSystem();
      const testId = await testIdOf(request, testerId);
      await expect
        .poll(() => checker.console_.viewFrames(testerId, 'phone'), { timeout: 30_000 })
        .toBeGreaterThan(10);
      await exam.finish();
      await expect(e.page).toHaveURL(/\/exam-end$/, { timeout: 30_000 });
      await expect(second.page.getByTestId('phone-ended')).toBeVisible({ timeout: 30_000 });
      await expect(second.page.getByTestId('phone-recording')).toHaveAttribute('data-state', 'done', {
        timeout: 60_000,
      });
      await playPhoneRecordings(browser, request, testId);
    } finally {
      await second.close();
      await phone.close();
      await e.close();
      await checker.close();
    }
  });

  test('in English: the phone page, the examinee panel, the checker’s pane and a phone that closes its page', async ({
    browser,
    request,
  }) => {
    test.setTimeout(240_000);
    const checker = new LiveChecker(CHECKER, PASSWORD);
    const e = new RealExaminee(EXAMINEES[1]);
    const phone = new PhoneCamera();
    try {
      await checker.open(browser, request, '/?actor=2&lang=en');
      const testerId = await toExamining(e, checker, browser, 'en');
      const panel = e.page.getByTestId('phone-panel');
      await expect(panel.getByTestId('phone-state')).toHaveText('Phone camera: Not connected yet', {
        timeout: 20_000,
      });
      await expectNoAxeViolations(e.page);
      const url = await decodeQr(panel.getByRole('img', { name: 'QR code to scan with your phone' }));
      expect(url).toContain('/phone?lang=en#');
      await phone.open(browser, url);
      await expect(phone.page.getByRole('heading', { name: 'Phone camera' })).toBeVisible();
      await expect(phone.page.getByTestId('phone-paired-with')).toHaveText(
        `Connected to the exam of スマホ受験者2 (${EXAMINEES[1]}).`,
      );
      await expectNoAxeViolations(phone.page);
      await phone.choose('rear');
      await expect(phone.connection()).toContainText('Connected', { timeout: 30_000 });
      await expectNoAxeViolations(phone.page);
      await expect(panel).toHaveAttribute('data-phone-state', 'live', { timeout: 20_000 });
      await expectNoAxeViolations(e.page);

      // The checker's pane, in English: the phone's view decoding beside the camera.
      const pane = checker.console_.pane(testerId);
      await expect(pane.getByTestId('pane-view-phone')).toHaveAttribute('data-status', 'live', {
        timeout: 30_000,
      });
      await expect
        .poll(() => checker.console_.viewFrames(testerId, 'phone'), { timeout: 30_000 })
        .toBeGreaterThan(10);
      await expect(pane.getByRole('button', { name: 'Show the Phone of スマホ受験者2 large' })).toBeVisible();
      await expectNoAxeViolations(checker.page);

      // The phone's page is closed: lost at once (it said so on the way out), and a new code is shown.
      await phone.page.close({ runBeforeUnload: true });
      await expect(panel).toHaveAttribute('data-phone-state', 'lost', { timeout: 15_000 });
      await expect(panel.getByTestId('phone-state')).toContainText('The connection was lost');
      await expect(panel.getByTestId('phone-qr')).toHaveAttribute('data-ready', 'true');
      await expect(pane.getByTestId('pane-view-phone')).toHaveAttribute('data-status', 'lost', {
        timeout: 20_000,
      });
      await expect(checker.page.getByTestId('console-alerts')).toContainText('The phone camera was lost');
      await expectNoAxeViolations(checker.page);
    } finally {
      await phone.close();
      await e.close();
      await checker.close();
    }
  });
});
