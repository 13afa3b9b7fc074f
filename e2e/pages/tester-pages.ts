import { expect, type Page } from '@playwright/test';

/** Page object for /env-setting (PRE00002). */
export class TesterEnvSettingPage {
  constructor(private readonly page: Page) {}

  async expectReady(): Promise<void> {
    await expect(this.page.locator('body#PRE00002')).toBeVisible();
    await expect(this.page.getByTestId('camera-state')).toHaveAttribute('data-state', '2', {
      timeout: 20_000,
    });
    await expect(this.page.getByTestId('microphone-state')).toHaveAttribute('data-state', '2');
    await expect(this.page.getByTestId('popup-state')).toHaveAttribute('data-state', 'ok');
  }

  async agreeAndNext(): Promise<void> {
    await this.page.locator('#env-terms-agree').check();
    await this.page.getByTestId('env-next').click();
  }
}

/** Page object for /identification (PRE00003, monitor check). */
export class TesterIdentificationPage {
  constructor(private readonly page: Page) {}

  async requestCheck(): Promise<void> {
    await expect(this.page.locator('body#PRE00003')).toBeVisible();
    for (let i = 0; i < 4; i += 1) await this.page.locator(`#check-${i}`).check();
    await this.page.getByTestId('request-check').click();
    await expect(this.page.getByTestId('identification-state')).toHaveAttribute(
      'data-state',
      /pending|confirming|accepted/,
    );
  }
}

/** Page object for /examining (PRE00004). */
export class TesterExaminingPage {
  constructor(private readonly page: Page) {}

  async agreeNotes(): Promise<void> {
    await expect(this.page.locator('body#PRE00004')).toBeVisible();
    await this.page.locator('#exam-notes-agree').check();
  }

  /** Opens the exam system; returns the popup. */
  async openExamSystem(): Promise<Page> {
    const popup = this.page.waitForEvent('popup');
    await this.page.getByTestId('exam-login').click();
    const p = await popup;
    await expect(this.page.getByTestId('exam-phase')).toHaveAttribute('data-phase', 'examing');
    return p;
  }

  async finish(): Promise<void> {
    await this.page.getByTestId('exam-finish').click();
    await this.page.getByRole('dialog').getByRole('button', { name: 'OK' }).click();
  }
}
