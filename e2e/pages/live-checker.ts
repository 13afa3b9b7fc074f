import { expect, type APIRequestContext, type Browser, type Page } from '@playwright/test';
import { LoginPage } from './login-page';
import { AdminApi } from './monitoring-examinee';
import { MonitoringConsolePage } from './monitoring-console';

/**
 * A checker of a spec's own on /monitoring, and the activation trick that makes the spec's examinees land on it:
 * while they start, every other checker is inactive.
 */
export class LiveChecker {
  console_!: MonitoringConsolePage;
  private admin!: AdminApi;
  private others: { monitor_id: number; activation: boolean }[] = [];

  constructor(
    readonly loginId: string,
    private readonly password: string,
  ) {}

  /** Logs the checker in on /monitoring in its own browser context (`startUrl` picks the language). */
  async open(browser: Browser, request: APIRequestContext, startUrl = '/s/demo-checker'): Promise<void> {
    this.admin = new AdminApi(request);
    await this.admin.login();
    const ctx = await browser.newContext();
    const page = await ctx.newPage();
    await MonitoringConsolePage.hookPeerConnections(page);
    this.console_ = new MonitoringConsolePage(page);
    await page.goto(startUrl);
    await expect(page).toHaveURL(/\/login$/);
    await new LoginPage(page).login(this.loginId, this.password);
    await expect(page).toHaveURL(/\/monitoring$/);
  }

  get page(): Page {
    return this.console_.page;
  }

  /** Runs `fn` while every other checker is inactive (their activation is put back afterwards). */
  async alone<T>(fn: () => Promise<T>): Promise<T> {
    const monitors = await this.admin.monitors();
    this.others = monitors.filter((m) => m.login_id !== this.loginId);
    for (const m of this.others) await this.admin.setActivation(m.monitor_id, false);
    try {
      return await fn();
    } finally {
      for (const m of this.others)
        await this.admin.setActivation(m.monitor_id, m.activation).catch(() => undefined);
    }
  }

  async close(): Promise<void> {
    await this.page.context().close();
  }
}
