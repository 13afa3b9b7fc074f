import { expect, type Download, type Page } from '@playwright/test';

/** Page object for /examinees (PRE00007): the search form, the result table and the CSV download. */
export class ExamineeSearchPage {
  constructor(private readonly page: Page) {}

  async open(): Promise<void> {
    await this.page.goto('/examinees');
    await expect(this.page.locator('body#PRE00007')).toBeVisible();
    await expect(this.page.locator('#search-login-id')).toBeVisible();
  }

  async searchByLoginId(loginId: string): Promise<void> {
    await this.page.locator('#search-login-id').fill(loginId);
    await this.page.getByRole('button', { name: '検索', exact: true }).click();
  }

  /** The result rows (each links to the examinee's detail page). */
  rows() {
    return this.page.locator('table tbody tr');
  }

  async openFirstResult(): Promise<void> {
    await this.rows().first().getByRole('link').first().click();
    await expect(this.page).toHaveURL(/\/examinees\/\d+$/);
  }

  /** Clicks the CSV button and waits for the browser's download. */
  async downloadCsv(): Promise<Download> {
    const [download] = await Promise.all([
      this.page.waitForEvent('download'),
      this.page.getByRole('button', { name: 'CSVダウンロード' }).click(),
    ]);
    return download;
  }
}

/** Page object for /examinees/{id}: pass/fail with its confirmation. */
export class ExamineeDetailPage {
  constructor(private readonly page: Page) {}

  passValue() {
    return this.page.getByTestId('pass-value');
  }

  /** Sets pass or fail, answers OK in the confirmation and closes the success alert. */
  async decide(pass: boolean): Promise<void> {
    await this.page.getByRole('button', { name: pass ? '合格にする' : '不合格にする', exact: true }).click();
    const confirm = this.page.getByRole('dialog');
    await expect(confirm).toBeVisible();
    await confirm.getByRole('button', { name: 'OK' }).click();
    const done = this.page.getByRole('dialog');
    await expect(done).toContainText('合否を更新しました。');
    await done.getByRole('button', { name: '閉じる' }).click();
    await expect(this.page.getByRole('dialog')).toHaveCount(0);
  }
}

/** The recording players of /examinees/{id}: a `<video>` above a bar of marking points. */
export class RecordingPlayer {
  constructor(private readonly page: Page) {}

  /** The first timeline that has a player. */
  timeline() {
    return this.page
      .getByTestId('recording-timeline')
      .filter({ has: this.page.locator('video') })
      .first();
  }

  video() {
    return this.timeline().locator('video');
  }

  /** Waits until the player knows the recording's duration; returns it in seconds. */
  async duration(): Promise<number> {
    await expect
      .poll(() => this.video().evaluate((v: HTMLVideoElement) => v.readyState), { timeout: 20_000 })
      .toBeGreaterThanOrEqual(1);
    return this.video().evaluate((v: HTMLVideoElement) => v.duration);
  }

  async currentTime(): Promise<number> {
    return this.video().evaluate((v: HTMLVideoElement) => v.currentTime);
  }

  /** Clicks the first checker marking on the bar. */
  async clickMarking(): Promise<void> {
    await this.timeline().locator('button[data-kind="marking"]').first().click();
  }
}

/** Page object for /analysis-request: request number, method, submit, and the history with its progress. */
export class AnalysisRequestPage {
  constructor(private readonly page: Page) {}

  /** Sends a request for the examinees selected on the search page. */
  async request(inseq: string, methodLabel: string): Promise<void> {
    await expect(this.page).toHaveURL(/\/analysis-request$/);
    await this.page.getByLabel('依頼番号').fill(inseq);
    await this.page.getByLabel('分析方法').selectOption({ label: methodLabel });
    await this.page.getByRole('button', { name: '依頼する' }).click();
    const done = this.page.getByRole('dialog');
    await expect(done).toContainText('データ抽出を依頼しました。');
    await done.getByRole('button', { name: '閉じる' }).click();
  }

  /** The history row of a request number. */
  row(inseq: string) {
    return this.page
      .getByRole('row')
      .filter({ has: this.page.getByRole('cell', { name: inseq, exact: true }) });
  }
}
