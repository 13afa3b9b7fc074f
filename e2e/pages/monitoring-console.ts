import { expect, type Locator, type Page } from '@playwright/test';
import { LoginPage } from './login-page';

/** Page object for the checker's /monitoring console (PRE00006). */
export class MonitoringConsolePage {
  constructor(readonly page: Page) {}

  /** Makes every RTCPeerConnection reachable as window.__pcs (media-stack.md §10). Call before any navigation. */
  static async hookPeerConnections(page: Page): Promise<void> {
    await page.context().addInitScript(() => {
      const Orig = window.RTCPeerConnection;
      const w = window as unknown as { __pcs: RTCPeerConnection[] };
      w.__pcs = [];
      window.RTCPeerConnection = class extends Orig {
        constructor(config?: RTCConfiguration) {
          super(config);
          w.__pcs.push(this);
        }
      } as typeof RTCPeerConnection;
    });
  }

  async login(loginId: string): Promise<void> {
    await this.page.goto('/s/demo-checker');
    await expect(this.page).toHaveURL(/\/login$/);
    await new LoginPage(this.page).login(loginId);
    await expect(this.page).toHaveURL(/\/monitoring$/);
    await expect(this.page.locator('body#PRE00006')).toBeVisible();
  }

  pane(testerId: number): Locator {
    return this.page.getByTestId(`monitor-pane-${testerId}`);
  }

  /** The pane showing the examinee with this login id. */
  paneOf(loginId: string): Locator {
    return this.page
      .locator('[data-testid^="monitor-pane-"]')
      .filter({ has: this.page.getByTestId('pane-login-id').getByText(loginId, { exact: true }) });
  }

  /** The tester id of the pane showing `loginId`. */
  async testerIdOf(loginId: string): Promise<number> {
    const tid = await this.paneOf(loginId).getAttribute('data-testid');
    return Number(tid!.replace('monitor-pane-', ''));
  }

  /** videoWidth of the pane's <video>. */
  videoWidth(testerId: number): Promise<number> {
    return this.pane(testerId)
      .getByTestId('pane-video')
      .evaluate((v) => (v as HTMLVideoElement).videoWidth);
  }

  /** Frames the <video> of one of the pane's views (camera, screen, phone) has shown so far. */
  viewFrames(testerId: number, view: string): Promise<number> {
    return this.pane(testerId)
      .getByTestId(`pane-view-${view}`)
      .locator('video')
      .evaluate((v) => (v as HTMLVideoElement).getVideoPlaybackQuality().totalVideoFrames);
  }

  /** Sum of inbound video framesDecoded over every live peer connection of the page. */
  framesDecoded(): Promise<number> {
    return this.page.evaluate(async () => {
      const pcs = (window as unknown as { __pcs: RTCPeerConnection[] }).__pcs ?? [];
      let n = 0;
      for (const pc of pcs) {
        if (pc.connectionState === 'closed') continue;
        const stats = await pc.getStats();
        stats.forEach((s: { type: string; kind?: string; framesDecoded?: number }) => {
          if (s.type === 'inbound-rtp' && s.kind === 'video') n += s.framesDecoded ?? 0;
        });
      }
      return n;
    });
  }

  /** The chat panel (at the side of the console), open for one examinee at a time. */
  chatPanel(): Locator {
    return this.page.getByTestId('chat-panel');
  }

  /** Closes the chat panel when it is open (it covers the panes while open). */
  async closeChat(): Promise<void> {
    if (await this.chatPanel().isVisible()) {
      await this.chatPanel().getByRole('button', { name: '閉じる' }).click();
      await expect(this.chatPanel()).toBeHidden();
    }
  }

  /** Opens the examinee's chat panel and returns its message list. */
  async chatList(testerId: number): Promise<Locator> {
    const panel = this.chatPanel();
    // The panel is not in the page while closed (getAttribute would wait for it).
    const open = (await panel.count()) > 0 ? await panel.getAttribute('data-tester-id') : null;
    if (open !== String(testerId)) {
      await this.closeChat();
      await this.pane(testerId).getByTestId('pane-chat-button').click();
      await expect(panel).toHaveAttribute('data-tester-id', String(testerId));
    }
    return panel.getByTestId('chat-list');
  }

  async decide(testerId: number, decision: '承認' | '否認'): Promise<void> {
    await this.closeChat();
    await this.pane(testerId).getByRole('button', { name: '本人確認', exact: true }).click();
    const modal = this.page.locator('#monitor-auth');
    await modal.getByRole('button', { name: decision }).click();
    await expect(modal).toBeHidden();
  }

  async saveMarking(testerId: number, notify: boolean): Promise<void> {
    await this.closeChat();
    await this.pane(testerId).getByRole('button', { name: '監視情報を保存' }).click();
    const modal = this.page.locator('#monitor-marking');
    await expect(modal.getByTestId('marking-still')).toBeVisible();
    await modal.getByLabel('不正の種類').selectOption({ index: 1 });
    await modal.getByLabel(notify ? '通知する' : '通知しない').check();
    await modal.getByRole('button', { name: '保存' }).click();
    const alert = this.page.locator('.modal-dialog[id^="global-alert"]');
    await expect(alert).toContainText('監視情報を保存');
    await alert.getByRole('button').last().click();
  }

  /** Sends a chat message from the chat panel, waits for it in the list, and closes the panel. */
  async chat(testerId: number, text: string): Promise<void> {
    const list = await this.chatList(testerId);
    await this.chatPanel().getByLabel('コメント').fill(text);
    await this.chatPanel().getByRole('button', { name: '送信' }).click();
    await expect(list).toContainText(text);
    await this.closeChat();
  }

  async kickOut(testerId: number): Promise<void> {
    await this.closeChat();
    await this.pane(testerId).getByRole('button', { name: '強制退出' }).click();
    await this.page
      .locator('.modal-dialog[id^="global-confirm"]')
      .getByRole('button', { name: 'OK' })
      .click();
  }
}
