import {
  expect,
  request as playwrightRequest,
  test,
  type APIRequestContext,
  type Browser,
  type Locator,
  type Page,
} from '@playwright/test';
import { expectNoAxeViolations } from './helpers';
import { LiveChecker } from './pages/live-checker';
import { RealExaminee } from './pages/monitoring-examinee';
import { apiToken, importAccounts, type SpecAccount } from './support/accounts';

// The checker console for a three-hour shift (README "Checker console"): AI realtime stills with Chromium's fake
// camera (which shows no face) become a "no face" flag the pane shows with its still; alerts reach the title and
// a desktop notification while the console's tab is hidden; five panes fit 1366×768 and 1920×1080; a keyboard-only
// run of accept → mark → chat → kick. Its own checker and examinees (imported), in a serial project after every
// other spec (playwright.config.ts), so no other checker takes its examinees.

const PASSWORD = 'console-Pass-2026';
const CHECKER = 'cc-checker';
const EXAMINEES = ['cc-a', 'cc-b', 'cc-c', 'cc-d', 'cc-e', 'cc-f'] as const;
const AI_URL = 'cc-ai-live';
const PLAIN_URL = 'cc-plain';

/** The short URLs of this spec: proctored, monitor identity check, no recording; one with AI realtime stills. */
async function registerStartupUrls(request: APIRequestContext): Promise<void> {
  const admin = await apiToken(request, 'sysadmin01');
  const base = {
    lang: 'ja',
    is_mobile: 0,
    is_mc_startup: 1,
    is_proctor: 1,
    is_auth: 1,
    is_record: 0,
    region: 'Online',
    matching_timeout: 5,
    tester_retry: 3,
    checker_retry: 3,
    webrtc_timeout: 10,
    is_ai_auth: 0,
    group: 'DEMO',
  };
  for (const [key, param] of [
    [
      AI_URL,
      {
        ...base,
        exam_name: 'AI live E2E',
        capture_interval: 5,
        capture_type: 1,
        is_capture_show: 1,
        ai_sensitivity: 'standard',
      },
    ],
    [PLAIN_URL, { ...base, exam_name: 'Console E2E' }],
  ] as const) {
    const r = await request.post('/api/v1/shorten_url/insert.php', {
      headers: { Authorization: `Bearer ${admin}` },
      data: { url_key: key, actor: 1, param },
    });
    expect([200, 409], await r.text()).toContain(r.status());
  }
}

/** Tells the console's page that its tab is hidden (headless Chromium always reports a visible, focused page). */
async function hideTab(page: Page): Promise<void> {
  await page.evaluate(() => {
    Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => 'hidden' });
    Object.defineProperty(document, 'hidden', { configurable: true, get: () => true });
    document.hasFocus = () => false;
    document.dispatchEvent(new Event('visibilitychange'));
  });
}

/** …and that the checker came back to it. */
async function showTab(page: Page): Promise<void> {
  await page.evaluate(() => {
    Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => 'visible' });
    Object.defineProperty(document, 'hidden', { configurable: true, get: () => false });
    document.hasFocus = () => true;
    document.dispatchEvent(new Event('visibilitychange'));
    window.dispatchEvent(new Event('focus'));
  });
}

/** An examinee through /s/<url> to /identification, landing on the spec's checker. */
async function toIdentification(
  e: RealExaminee,
  checker: LiveChecker,
  browser: Browser,
  url: string,
): Promise<number> {
  await e.openToEnvSetting(browser, PASSWORD, `/s/${url}`);
  await checker.alone(async () => {
    await e.startTransmission();
    await expect(checker.console_.paneOf(e.loginId)).toBeVisible({ timeout: 30_000 });
  });
  return checker.console_.testerIdOf(e.loginId);
}

/** Presses Tab until the focused element's accessible name is `name` (at most `max` presses). */
async function tabTo(page: Page, name: RegExp, max = 15): Promise<void> {
  for (let i = 0; i < max; i++) {
    await page.keyboard.press('Tab');
    const label = await page.evaluate(() => {
      const el = document.activeElement as HTMLElement | null;
      return el?.getAttribute('aria-label') ?? el?.textContent?.trim() ?? '';
    });
    if (name.test(label)) return;
  }
  throw new Error(`Tab never reached ${name}`);
}

/** The box of `l` lies inside the viewport (scrolled to the top). */
async function expectInViewport(page: Page, l: Locator, what: string): Promise<void> {
  const vp = page.viewportSize()!;
  const b = await l.boundingBox();
  expect(b, what).not.toBeNull();
  expect(b!.x, `${what} left`).toBeGreaterThanOrEqual(0);
  expect(b!.y, `${what} top`).toBeGreaterThanOrEqual(0);
  expect(b!.x + b!.width, `${what} right`).toBeLessThanOrEqual(vp.width);
  expect(b!.y + b!.height, `${what} bottom`).toBeLessThanOrEqual(vp.height);
}

test.describe('the checker console for a three-hour shift', () => {
  test.skip(!!process.env.E2E_NO_NETNS, 'WebRTC needs the loopback-only network namespace');
  test.describe.configure({ mode: 'serial' });

  const checker = new LiveChecker(CHECKER, PASSWORD);
  const examinees = EXAMINEES.map((id) => new RealExaminee(id));
  // The checker lives across the tests (its console keeps its panes), so its API session is the spec's own.
  let request: APIRequestContext;

  test.beforeAll(async ({ browser }, testInfo) => {
    test.setTimeout(120_000);
    request = await playwrightRequest.newContext({ baseURL: testInfo.project.use.baseURL });
    await importAccounts(request, [
      [CHECKER, 'コンソール監視者', 2, '', PASSWORD],
      ...EXAMINEES.map((id, i): SpecAccount => [id, `コンソール受験者${i + 1}`, 1, 'DEMO', PASSWORD]),
    ]);
    await registerStartupUrls(request);
    await checker.open(browser, request);
    // Desktop notifications are allowed; the page records the ones it shows. (Granting replaces the context's
    // permissions: without camera and microphone among them, Chromium gathers no ICE candidates for the viewer.)
    await checker.page.context().grantPermissions(['notifications', 'camera', 'microphone']);
    await checker.page.evaluate(() => {
      const w = window as unknown as { __notes: { title: string; body: string }[] };
      w.__notes = [];
      const Orig = window.Notification;
      window.Notification = class extends Orig {
        constructor(title: string, o?: NotificationOptions) {
          super(title, o);
          w.__notes.push({ title, body: o?.body ?? '' });
        }
      } as typeof Notification;
    });
  });

  test.afterAll(async () => {
    for (const e of examinees) await e.close();
    await checker.close().catch(() => undefined);
    await request.dispose();
  });

  test('AI realtime: the fake camera shows no face, the pane shows the "no face" flag with its still, and the alert reaches the title while the tab is hidden', async ({
    browser,
  }) => {
    test.setTimeout(240_000);
    const e = examinees[0]!;
    const page = checker.page;
    const testerId = await toIdentification(e, checker, browser, AI_URL);
    const pane = checker.console_.pane(testerId);
    await expect(pane.getByTestId('pane-connection')).toHaveAttribute('data-connection', 'live', {
      timeout: 60_000,
    });
    // The checker looks elsewhere from now on.
    await hideTab(page);
    await e.requestCheck();
    await expect(pane).toHaveAttribute('data-auth', 'authenticating', { timeout: 15_000 });
    await checker.console_.decide(testerId, '承認');
    await expect(e.page).toHaveURL(/\/examining$/, { timeout: 20_000 });

    // Stills every 5 s from the accepted identity on: the first one has no face in it.
    const flag = pane.getByTestId('pane-flag-still');
    await expect(flag).toHaveAttribute('data-flag', 'no_face', { timeout: 60_000 });
    await expect(flag).toContainText('顔なし');
    const still = flag.getByRole('img');
    await expect(still).toHaveAttribute('alt', /AIフラグ「顔なし」のキャプチャ/);
    await expect.poll(() => still.evaluate((i) => (i as HTMLImageElement).naturalWidth)).toBeGreaterThan(0);
    await expect(pane.getByTestId('pane-latest-still').getByRole('img')).toBeVisible();
    await expect(pane.getByTestId('pane-flag-badge')).toHaveAttribute('data-alert', 'true');
    expect(Number(await pane.getByTestId('pane-flag-badge').getAttribute('data-count'))).toBeGreaterThan(0);
    await expect(pane.getByTestId('pane-timeline')).not.toHaveAttribute('data-flags', '0');

    // The alert says which pane and examinee, counts in the title and shows a desktop notification.
    const number = await pane.locator('.pane-number').innerText();
    const who = `画面 ${number}・コンソール受験者1 (${e.loginId})`;
    await expect(page.getByTestId('console-alerts')).toContainText(`${who}: AIフラグ: 顔なし`);
    await expect.poll(() => page.title()).toMatch(/^\((\d+)\) /);
    await expect
      .poll(() => page.evaluate(() => (window as unknown as { __notes: unknown[] }).__notes))
      .toContainEqual({ title: who, body: 'AIフラグ: 顔なし' });
    // Back on the console: the count leaves the title.
    await showTab(page);
    await expect.poll(() => page.title()).not.toMatch(/^\(\d+\) /);
    await expectNoAxeViolations(page);
  });

  test('keyboard only: accept → mark → chat → kick on one pane, every action also reachable with Tab', async ({
    browser,
  }) => {
    test.setTimeout(240_000);
    const e = examinees[1]!;
    const page = checker.page;
    const testerId = await toIdentification(e, checker, browser, PLAIN_URL);
    const pane = checker.console_.pane(testerId);
    const number = await pane.locator('.pane-number').innerText();
    await e.requestCheck();
    await expect(pane).toHaveAttribute('data-auth', 'authenticating', { timeout: 15_000 });
    await page.bringToFront();

    // Its number focuses the pane, visibly.
    await page.keyboard.press(number);
    await expect(pane).toBeFocused();
    expect(await pane.evaluate((el) => getComputedStyle(el).outlineStyle)).not.toBe('none');
    // Every action is a button in the pane, in the Tab order.
    const names: string[] = [];
    for (let i = 0; i < 12; i++) {
      await page.keyboard.press('Tab');
      const inPane = await pane.evaluate((el) => el.contains(document.activeElement));
      if (!inPane) break;
      names.push(
        await page.evaluate(() => {
          const el = document.activeElement as HTMLElement;
          return el.getAttribute('aria-label') ?? el.textContent?.trim() ?? '';
        }),
      );
    }
    for (const n of ['本人確認', '監視情報を保存', 'チャット', '強制退出', '拡大'])
      expect(names, names.join(' | ')).toContain(n);
    expect(names.some((n) => n.startsWith('音声'))).toBe(true);

    // A: the identity dialog asks to confirm, with the answer focused; Enter accepts.
    await page.keyboard.press(number);
    await page.keyboard.press('a');
    const auth = page.locator('#monitor-auth');
    await expect(auth.getByTestId('auth-confirm')).toContainText('本人確認を承認しますか？');
    await expect(auth.getByRole('button', { name: '承認' })).toBeFocused();
    await page.keyboard.press('Enter');
    await expect(auth).toBeHidden();
    await expect(pane).toHaveAttribute('data-auth', 'accepted');
    await expect(e.page).toHaveURL(/\/examining$/, { timeout: 20_000 });

    // M: the marking dialog opens on the kind of misconduct; arrows choose, Tab to Save, Enter.
    await page.keyboard.press(number);
    await page.keyboard.press('m');
    const marking = page.locator('#monitor-marking');
    await expect(marking.getByLabel('不正の種類')).toBeFocused();
    await page.keyboard.press('ArrowDown');
    await expect(marking.getByLabel('不正の種類')).not.toHaveValue('');
    await tabTo(page, /^保存$/);
    await page.keyboard.press('Enter');
    const alert = page.locator('.modal-dialog[id^="global-alert"]');
    await expect(alert).toContainText('監視情報を保存');
    await tabTo(page, /.+/);
    await page.keyboard.press('Enter');
    await expect(alert).toBeHidden();
    // The dialogs fade out (the marking dialog keeps the focus until it is gone): the checker goes on after that.
    await expect(page.locator('.modal')).toHaveCount(0);

    // C: the chat panel opens with the focus in the comment field; Enter sends, Esc closes.
    await page.keyboard.press(number);
    await page.keyboard.press('c');
    const panel = checker.console_.chatPanel();
    await expect(panel.getByLabel('コメント')).toBeFocused();
    await page.keyboard.type('キーボードから送信します');
    await page.keyboard.press('Enter');
    await expect(panel.getByTestId('chat-list')).toContainText('キーボードから送信します');
    await expect(e.page.getByTestId('tester-chat')).toContainText('キーボードから送信します', {
      timeout: 15_000,
    });
    await page.keyboard.press('Escape');
    await expect(panel).toBeHidden();

    // K: the kick-out asks to confirm; Tab to OK, Enter.
    await page.keyboard.press(number);
    await page.keyboard.press('k');
    const confirmDialog = page.locator('.modal-dialog[id^="global-confirm"]');
    await expect(confirmDialog).toContainText('強制退出させます');
    await tabTo(page, /^OK$/);
    await page.keyboard.press('Enter');
    await expect(e.page.getByTestId('exit-notice')).toContainText('強制的に退出', { timeout: 20_000 });
    await expect(pane).toBeHidden({ timeout: 30_000 });
    await expect(alert).toContainText('強制退出');
    await tabTo(page, /.+/);
    await page.keyboard.press('Enter');
    await expect(alert).toBeHidden();
  });

  test('five panes fit 1366×768 and 1920×1080 without scrolling (screenshots), one enlarges and restores, axe clean in ja and en', async ({
    browser,
  }, testInfo) => {
    test.setTimeout(360_000);
    const page = checker.page;
    for (const e of examinees.slice(2)) await toIdentification(e, checker, browser, PLAIN_URL);
    const panes = page.locator('[data-testid^="monitor-pane-"]');
    await expect(panes).toHaveCount(5, { timeout: 30_000 });
    for (const p of await panes.all()) {
      await expect(p.getByTestId('pane-connection')).toHaveAttribute('data-connection', 'live', {
        timeout: 60_000,
      });
    }

    for (const [width, height] of [
      [1366, 768],
      [1920, 1080],
    ] as const) {
      await page.setViewportSize({ width, height });
      await page.evaluate(() => window.scrollTo(0, 0));
      await page.screenshot({ path: testInfo.outputPath(`console-${width}x${height}.png`) });
      await testInfo.attach(`console ${width}×${height}`, {
        path: testInfo.outputPath(`console-${width}x${height}.png`),
        contentType: 'image/png',
      });
      for (const [i, p] of (await panes.all()).entries()) {
        const what = `${width}×${height} pane ${i + 1}`;
        await expectInViewport(page, p, what);
        await expectInViewport(page, p.getByTestId('pane-video'), `${what} video`);
        await expectInViewport(page, p.getByTestId('pane-name'), `${what} name`);
        await expectInViewport(page, p.getByTestId('pane-state'), `${what} state`);
        await expectInViewport(page, p.getByTestId('pane-flag-badge'), `${what} flag badge`);
        await expectInViewport(page, p.getByRole('group'), `${what} actions`);
      }
    }

    // One pane enlarged: larger than the others, which stay in view; restored, all five are equal again.
    await page.setViewportSize({ width: 1366, height: 768 });
    const first = panes.first();
    const before = (await first.boundingBox())!;
    await first.getByRole('button', { name: '拡大' }).click();
    await expect(page.getByTestId('monitor-panes')).toHaveAttribute('data-enlarged');
    const large = (await first.boundingBox())!;
    expect(large.width).toBeGreaterThan(before.width * 2);
    await page.screenshot({ path: testInfo.outputPath('console-1366x768-enlarged.png') });
    await expect(panes.nth(1)).toBeVisible();
    await first.getByRole('button', { name: '元の大きさに戻す' }).click();
    await expect(page.getByTestId('monitor-panes')).not.toHaveAttribute('data-enlarged');
    expect((await first.boundingBox())!.width).toBeCloseTo(before.width, 0);

    await expectNoAxeViolations(page);
    // English: the same checker on a console started in English.
    const en = new LiveChecker(CHECKER, PASSWORD);
    await en.open(browser, request, '/?actor=2&lang=en');
    try {
      await expect(en.page.locator('[data-testid^="monitor-pane-"]')).toHaveCount(5, { timeout: 30_000 });
      await expect(en.page.getByRole('button', { name: 'Keyboard shortcuts (?)' })).toBeVisible();
      await en.page.keyboard.press('?');
      await expect(en.page.getByRole('dialog', { name: 'Keyboard shortcuts' })).toBeVisible();
      await expectNoAxeViolations(en.page);
      await en.page.keyboard.press('Escape');
      await expectNoAxeViolations(en.page);
    } finally {
      await en.close();
    }
  });
});
