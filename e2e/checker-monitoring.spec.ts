import { expect, test } from '@playwright/test';
import { ApiExaminee } from './pages/monitoring-examinee';
import { MonitoringConsolePage } from './pages/monitoring-console';

// The checker journey of issue #4. checker02 and tester08/tester09 are used by no other spec. The examinee
// pages (issue #3) are not built yet, so the examinees are driven through their API plus a fake-media MASTER page.
test.describe('checker monitoring console', () => {
  test.skip(!!process.env.E2E_NO_NETNS, 'WebRTC needs the loopback-only network namespace');

  test('sees live panes, decides identities, marks, chats, kicks out, and drops a closed examinee', async ({
    browser,
    playwright,
    baseURL,
  }) => {
    test.setTimeout(240_000);
    const checkerContext = await browser.newContext();
    const checkerPage = await checkerContext.newPage();
    await MonitoringConsolePage.hookPeerConnections(checkerPage);
    const console_ = new MonitoringConsolePage(checkerPage);
    await console_.login('checker02');

    const examineeContext = await browser.newContext({ permissions: ['camera', 'microphone'] });
    const api1 = await playwright.request.newContext({ baseURL });
    const api2 = await playwright.request.newContext({ baseURL });
    const a = new ApiExaminee(api1, 'tester08');
    const b = new ApiExaminee(api2, 'tester09');
    try {
      await a.login();
      await b.login();
      await a.publish(examineeContext, baseURL!);
      await b.publish(examineeContext, baseURL!);

      // Both panes appear with their video decoding.
      for (const e of [a, b]) {
        await expect(console_.pane(e.testerId)).toBeVisible({ timeout: 30_000 });
        await expect(console_.pane(e.testerId).getByTestId('pane-login-id')).toHaveText(e.loginId);
        await expect.poll(() => console_.videoWidth(e.testerId), { timeout: 30_000 }).toBeGreaterThan(0);
        await expect(console_.pane(e.testerId).getByTestId('pane-connection')).toHaveAttribute(
          'data-connection',
          'live',
        );
      }
      const f0 = await console_.framesDecoded();
      await expect.poll(() => console_.framesDecoded(), { timeout: 10_000 }).toBeGreaterThan(f0 + 10);

      // Identity: accept one, reject the other; both examinees receive the result.
      await a.authenticating();
      await b.authenticating();
      await console_.decide(a.testerId, '承認');
      await console_.decide(b.testerId, '否認');
      await expect.poll(async () => (await a.messages()).some((m) => m.message === 'ACCEPTED')).toBe(true);
      await expect.poll(async () => (await b.messages()).some((m) => m.message === 'REJECTED')).toBe(true);
      await expect(console_.pane(a.testerId).getByTestId('pane-auth-state')).toHaveText('本人確認済み');

      // Marking with notification: the examinee gets the alert.
      await console_.saveMarking(a.testerId, true);
      await expect
        .poll(async () => (await a.messages()).some((m) => m.message.startsWith('MARKING_ALERT:')))
        .toBe(true);

      // Chat both ways.
      await console_.chat(a.testerId, 'カメラの位置を直してください');
      await expect
        .poll(async () => (await a.messages()).some((m) => m.message === 'カメラの位置を直してください'))
        .toBe(true);
      await a.post('わかりました');
      await expect(console_.pane(a.testerId).getByTestId('chat-list')).toContainText('わかりました', {
        timeout: 10_000,
      });

      // Kick-out: the examinee gets KICK_OUT and the pane goes away.
      await console_.kickOut(b.testerId);
      await expect.poll(async () => (await b.messages()).some((m) => m.message === 'KICK_OUT')).toBe(true);
      await expect(console_.pane(b.testerId)).toBeHidden({ timeout: 15_000 });
      await b.stop();

      // The examinee announces BEFORE_CLOSE and closes its window: the pane goes away after the delay.
      await a.closeWindow();
      await expect(console_.pane(a.testerId)).toBeHidden({ timeout: 60_000 });
    } finally {
      await a.stop().catch(() => undefined);
      await b.stop().catch(() => undefined);
      await examineeContext.close();
      await checkerContext.close();
      await api1.dispose();
      await api2.dispose();
    }
  });
});
