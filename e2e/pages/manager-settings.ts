import { expect, type Page } from '@playwright/test';

/** Page object for /create-shorturl (PRE00007): the registration form. */
export class ShortUrlFormPage {
  constructor(private readonly page: Page) {}

  async open(): Promise<void> {
    await this.page.goto('/create-shorturl');
    await expect(this.page.locator('#su-url-key')).toBeVisible();
  }

  /** Registers a tester URL with the interface language `lang`; returns the working address shown. */
  async register(urlKey: string, lang: 'ja' | 'en'): Promise<string> {
    await this.page.locator('#su-url-key').fill(urlKey);
    await this.page.locator('#su-actor').selectOption('1');
    await this.page.locator('#su-lang').selectOption(lang);
    await this.page.getByRole('button', { name: '登録', exact: true }).click();
    const link = this.page.getByTestId('saved-short-url');
    await expect(link).toBeVisible();
    return (await link.getAttribute('href')) ?? '';
  }
}

/** Page object for /access-limit (PRE00007): insert and delete of rules. */
export class AccessLimitPage {
  constructor(private readonly page: Page) {}

  async open(): Promise<void> {
    await this.page.goto('/access-limit');
    await expect(this.page.locator('#al-ip')).toBeVisible();
  }

  async add(ip: string, actor: number): Promise<void> {
    await this.page.locator('#al-ip').fill(ip);
    await this.page.locator('#al-actor').selectOption(String(actor));
    await this.page.getByRole('button', { name: '追加', exact: true }).click();
    await expect(this.page.getByRole('checkbox', { name: `${ip}を選択` })).toBeVisible();
  }

  async remove(ip: string): Promise<void> {
    await this.page.getByRole('checkbox', { name: `${ip}を選択` }).check();
    await this.page.getByRole('button', { name: '選択した制限を削除' }).click();
    await this.page.getByRole('dialog').getByRole('button', { name: 'OK' }).click();
    await expect(this.page.getByRole('checkbox', { name: `${ip}を選択` })).toHaveCount(0);
  }
}
