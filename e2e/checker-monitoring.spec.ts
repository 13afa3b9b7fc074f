import { expect, test } from '@playwright/test';
import { AdminApi, RealExaminee } from './pages/monitoring-examinee';
import { MonitoringConsolePage } from './pages/monitoring-console';
import { expectNoAxeViolations } from './helpers';

// The checker journey, with the examinees on the REAL examinee pages (not API calls): tester08 and
// tester11 (each in its own browser context, fake media) and checker02 on /monitoring. No other spec uses them.
//
// Assignment race: any active checker that polled recently gets waiting examinees (least loaded first), and
// other specs' checkers (checker01 in tester-journey / recording / foundation) poll while this spec runs with
// 2 workers. So only for the short window in which tester08/tester11 start transmitting, every other checker
// is deactivated (tester/monitor_activate as sysadmin01; their previous activation is restored right after);
// the window opens only once nobody else is waiting, so another spec's examinee is not pulled onto checker02.
// Once both are matched to checker02, checker02 itself is deactivated (it keeps its matchings but gets no
// further examinees) until the end of the test. Serial mode alone would not help: it orders tests within a file,
// not across the two workers.
test.describe('checker monitoring console', () => {
  test.skip(!!process.env.E2E_NO_NETNS, 'WebRTC needs the loopback-only network namespace');

  test('sees live panes, decides identities, marks, chats, kicks out, and drops a closed examinee', async ({
    browser,
    playwright,
    baseURL,
  }) => {
    test.setTimeout(300_000);
    const adminRequest = await playwright.request.newContext({ baseURL });
    const admin = new AdminApi(adminRequest);
    await admin.login();
    const monitors = await admin.monitors();
    const checker02 = monitors.find((m) => m.login_id === 'checker02')!;
    const others = monitors.filter((m) => m.login_id !== 'checker02');
    const restoreOthers = async () => {
      for (const m of others) await admin.setActivation(m.monitor_id, m.activation).catch(() => undefined);
    };
    await admin.setActivation(checker02.monitor_id, true);

    const checkerContext = await browser.newContext();
    const checkerPage = await checkerContext.newPage();
    await MonitoringConsolePage.hookPeerConnections(checkerPage);
    const console_ = new MonitoringConsolePage(checkerPage);
    const a = new RealExaminee('tester08');
    const b = new RealExaminee('tester11');
    try {
      await console_.login('checker02');
      await a.openToEnvSetting(browser);
      await b.openToEnvSetting(browser);

      // The assignment window (see above).
      await expect
        .poll(() => admin.waiting(), { timeout: 30_000, intervals: [1000] })
        .toEqual([])
        .catch(() => undefined);
      for (const m of others) await admin.setActivation(m.monitor_id, false);
      try {
        await a.startTransmission();
        await b.startTransmission();
        for (const e of [a, b]) await expect(console_.paneOf(e.loginId)).toBeVisible({ timeout: 30_000 });
      } finally {
        await restoreOthers();
      }
      await admin.setActivation(checker02.monitor_id, false);

      const idA = await console_.testerIdOf(a.loginId);
      const idB = await console_.testerIdOf(b.loginId);

      // Both panes show their own examinee's video, decoding.
      for (const id of [idA, idB]) {
        await expect.poll(() => console_.videoWidth(id), { timeout: 30_000 }).toBeGreaterThan(0);
        await expect(console_.pane(id).getByTestId('pane-connection')).toHaveAttribute(
          'data-connection',
          'live',
        );
      }
      const f0 = await console_.framesDecoded();
      await expect.poll(() => console_.framesDecoded(), { timeout: 10_000 }).toBeGreaterThan(f0 + 10);

      // Accessibility of the console with two live panes.
      await expectNoAxeViolations(checkerPage);

      // Chat both ways (the examinee's chat is on the identification page).
      await console_.chat(idA, 'カメラの位置を直してください');
      await expect(a.chatItems()).toContainText('カメラの位置を直してください', { timeout: 15_000 });
      await a.sendChat('わかりました');
      await expect(await console_.chatList(idA)).toContainText('わかりました', {
        timeout: 15_000,
      });

      // Identity: both ask; accept one, reject the other; both examinee pages show the result.
      await a.requestCheck();
      await b.requestCheck();
      await expect(console_.pane(idA)).toHaveAttribute('data-auth', 'authenticating', { timeout: 15_000 });
      await expect(console_.pane(idB)).toHaveAttribute('data-auth', 'authenticating', { timeout: 15_000 });
      await console_.decide(idA, '承認');
      await console_.decide(idB, '否認');
      await expect(a.page).toHaveURL(/\/examining$/, { timeout: 20_000 });
      await expect(b.identificationState()).toHaveAttribute('data-state', 'rejected', { timeout: 20_000 });
      await expect(console_.pane(idA).getByTestId('pane-auth-state')).toHaveText('本人確認済み');

      // The examinee reloads its exam page: its matching ends and the reloaded page is matched again (to
      // checker02: the assignment window again, see above). The checker's matching poll is held back until then,
      // so the pane goes straight over to the sitting's new matching (as on a poll that does not fall in the
      // gap) and must still say the identity was accepted: the markers that said so are not sent again.
      const monitorIdA = (await console_.pane(idA).getAttribute('data-monitor-id'))!;
      await expect
        .poll(() => admin.waiting(), { timeout: 30_000, intervals: [1000] })
        .toEqual([])
        .catch(() => undefined);
      for (const m of others) await admin.setActivation(m.monitor_id, false);
      await admin.setActivation(checker02.monitor_id, true);
      let release = () => {};
      const held = new Promise<void>((r) => (release = r));
      await checkerPage.route('**/api/v1/matching.php', async (route) => {
        await held;
        await route.continue();
      });
      try {
        a.page.on('dialog', (d) => void d.accept());
        // The reloaded page's first matching poll (the old page's last one may still answer meanwhile).
        const reloadedAt = Date.now();
        const rematched = a.page.waitForResponse(
          (r) => r.url().includes('/api/v1/matching.php') && r.request().timing().startTime > reloadedAt,
          { timeout: 30_000 },
        );
        await a.page.reload();
        await rematched;
        release();
        await expect(console_.pane(idA)).not.toHaveAttribute('data-monitor-id', monitorIdA, {
          timeout: 30_000,
        });
        await expect(console_.pane(idA).getByTestId('pane-auth-state')).toHaveText('本人確認済み');
      } finally {
        release();
        await checkerPage.unroute('**/api/v1/matching.php');
        await restoreOthers();
        await admin.setActivation(checker02.monitor_id, false);
      }
      await expect(a.page).toHaveURL(/\/examining$/, { timeout: 20_000 });
      await expect(console_.pane(idA).getByTestId('pane-connection')).toHaveAttribute(
        'data-connection',
        'live',
        { timeout: 30_000 },
      );
      await expect(console_.pane(idA).getByTestId('pane-auth-state')).toHaveText('本人確認済み');

      // Marking with notification: the examinee sees the alert.
      await console_.saveMarking(idA, true);
      await expect(a.alert()).toContainText('監視者からの通知', { timeout: 20_000 });

      // Kick-out: the examinee's page shows the forced-exit text and the pane goes away.
      await console_.kickOut(idB);
      await expect(b.page.getByTestId('exit-notice')).toContainText('強制的に退出', { timeout: 20_000 });
      await expect(console_.pane(idB)).toBeHidden({ timeout: 30_000 });

      // The examinee closes its window: the pane goes away after the viewer loses it.
      await a.close();
      await expect(console_.pane(idA)).toBeHidden({ timeout: 90_000 });
    } finally {
      await restoreOthers();
      await admin.setActivation(checker02.monitor_id, checker02.activation).catch(() => undefined);
      await a.close();
      await b.close();
      await checkerContext.close();
      await adminRequest.dispose();
    }
  });
});
