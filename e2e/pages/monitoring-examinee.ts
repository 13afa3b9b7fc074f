import {
  expect,
  type APIRequestContext,
  type Browser,
  type BrowserContext,
  type Page,
} from '@playwright/test';
import { LoginPage } from './login-page';
import { TesterEnvSettingPage, TesterIdentificationPage } from './tester-pages';

interface Envelope<T> {
  status: number;
  message: string;
  result: T;
}

/**
 * An examinee driven through the real examinee pages (as a person would) in its own browser context, with
 * fake media.
 */
export class RealExaminee {
  context: BrowserContext | null = null;
  page!: Page;

  constructor(readonly loginId: string) {}

  /** The examinee's browser context and page (made once), for init scripts before the first navigation. */
  async beforeNavigation(
    browser: Browser,
    prepare?: (ctx: BrowserContext) => Promise<unknown>,
  ): Promise<void> {
    if (!this.context) {
      this.context = await browser.newContext({ permissions: ['camera', 'microphone'] });
      if (prepare) await prepare(this.context);
      this.page = await this.context.newPage();
    }
  }

  /** Starts up through `startUrl` and logs in; where the page goes next is the caller's to check. */
  async loginOnly(browser: Browser, password = 'demo-pass', startUrl = '/s/demo-tester'): Promise<void> {
    await this.beforeNavigation(browser);
    await this.page.goto(startUrl);
    await expect(this.page).toHaveURL(/\/login$/);
    await new LoginPage(this.page).login(this.loginId, password);
  }

  /** Logs in through `startUrl` and stops on /env-setting once the devices are ready. */
  async openToEnvSetting(
    browser: Browser,
    password = 'demo-pass',
    startUrl = '/s/demo-tester',
  ): Promise<void> {
    await this.loginOnly(browser, password, startUrl);
    await expect(this.page).toHaveURL(/\/env-setting$/);
    await new TesterEnvSettingPage(this.page).expectReady();
  }

  /** Agrees and goes on to /identification (transmission and matching start). */
  async startTransmission(): Promise<void> {
    await new TesterEnvSettingPage(this.page).agreeAndNext();
    await expect(this.page).toHaveURL(/\/identification$/, { timeout: 20_000 });
  }

  async requestCheck(): Promise<void> {
    await new TesterIdentificationPage(this.page).requestCheck();
  }

  identificationState() {
    return this.page.getByTestId('identification-state');
  }

  async sendChat(text: string): Promise<void> {
    await this.page.locator('#chat-input').fill(text);
    await this.page.locator('#chat-input').press('Enter');
    await expect(this.page.locator('#chat-input')).toHaveValue('');
  }

  chatItems() {
    return this.page.getByTestId('chat-items');
  }

  /** The page's global alert dialog (ids global-alert-N). */
  alert() {
    return this.page.locator('.modal-dialog[id^="global-alert"]');
  }

  async close(): Promise<void> {
    await this.context?.close().catch(() => undefined);
    this.context = null;
  }
}

/** A sysadmin's API session for monitor activation (tester/monitor_activate*.php) and checkers/monitoring. */
export class AdminApi {
  private token = '';
  constructor(private readonly request: APIRequestContext) {}

  private async call<T>(
    method: 'GET' | 'POST',
    endpoint: string,
    data?: Record<string, unknown>,
  ): Promise<T> {
    const url = `/api/v1/${endpoint}.php`;
    const headers = this.token ? { Authorization: `Bearer ${this.token}` } : undefined;
    const res =
      method === 'GET'
        ? await this.request.get(url, { headers })
        : await this.request.post(url, { headers, data: data ?? {} });
    const body = (await res.json()) as Envelope<T>;
    if (body.status !== 200) throw new Error(`${endpoint}: ${body.status} ${body.message}`);
    return body.result;
  }

  async login(loginId = 'sysadmin01'): Promise<void> {
    const r = await this.call<{ access_token: string }>('POST', 'login', {
      login_id: loginId,
      password: 'demo-pass',
    });
    this.token = r.access_token;
  }

  async monitors(): Promise<{ monitor_id: number; login_id: string; activation: boolean }[]> {
    return (
      await this.call<{ monitors: { monitor_id: number; login_id: string; activation: boolean }[] }>(
        'GET',
        'tester/monitor_activate_list',
      )
    ).monitors;
  }

  async setActivation(monitorId: number, activation: boolean): Promise<void> {
    await this.call('POST', 'tester/monitor_activate', { monitor_id: monitorId, activation });
  }

  /** Login ids of examinees waiting for a checker (checkers/monitoring not_matchings). */
  async waiting(): Promise<string[]> {
    const r = await this.call<{ not_matchings: { login_id: string; monitor_id: number | null }[] }>(
      'GET',
      'checkers/monitoring',
    );
    return r.not_matchings.filter((t) => t.monitor_id !== null).map((t) => t.login_id);
  }
}
