import { expect, type Page } from '@playwright/test';

/** Page object for /login (PRE00001). */
export class LoginPage {
  constructor(private readonly page: Page) {}

  async open(query = ''): Promise<void> {
    await this.page.goto(`/login${query}`);
    await expect(this.page.locator('body#PRE00001')).toBeVisible();
  }

  async login(loginId: string, password = 'demo-pass'): Promise<void> {
    await this.page.locator('input[name="loginId"]').fill(loginId);
    await this.page.locator('input[name="password"]').fill(password);
    await this.page.locator('main button[type="submit"]').click();
  }
}
