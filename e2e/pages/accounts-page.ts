import { expect, type Download, type Locator, type Page } from '@playwright/test';

/** Page object for /accounts (PRE00007): CSV import, exam groups, accounts list. */
export class AccountsPage {
  constructor(private readonly page: Page) {}

  async openFromMenu(): Promise<void> {
    await this.page.getByRole('link', { name: 'アカウント管理' }).click();
    await expect(this.page).toHaveURL(/\/accounts$/);
    await expect(this.page.getByRole('heading', { name: 'アカウント一覧' })).toBeVisible();
  }

  async createGroup(code: string, name: string): Promise<void> {
    await this.page.getByLabel('試験団体コード').fill(code);
    await this.page.getByLabel('試験団体名').fill(name);
    await this.page.getByRole('button', { name: '試験団体を作成' }).click();
    await expect(
      this.page.getByRole('table', { name: '試験団体の一覧' }).getByRole('cell', { name: code }),
    ).toBeVisible();
  }

  async chooseCsv(name: string, text: string): Promise<void> {
    await this.page
      .getByLabel('CSVファイル')
      .setInputFiles({ name, mimeType: 'text/csv', buffer: Buffer.from(text) });
    await expect(this.page.getByTestId('import-preview')).toBeVisible();
  }

  errors(): Locator {
    return this.page.getByTestId('import-errors');
  }

  importButton(): Locator {
    return this.page.getByRole('button', { name: '登録する' });
  }

  async skipInvalid(): Promise<void> {
    await this.page.getByLabel('不正な行を除いて登録する').check();
  }

  /** Imports, then downloads the generated passwords; returns them by login id. */
  async importAndDownloadPasswords(): Promise<Record<string, string>> {
    await this.importButton().click();
    await expect(this.page.getByTestId('import-done')).toBeVisible();
    const [download] = await Promise.all([
      this.page.waitForEvent('download'),
      this.page.getByRole('button', { name: '生成したパスワードをダウンロード' }).click(),
    ]);
    const text = await readDownload(download);
    const rows = text
      .replace(/^\uFEFF/, '')
      .trim()
      .split('\r\n');
    expect(rows[0]).toBe('login_id,password');
    return Object.fromEntries(rows.slice(1).map((r) => r.split(',') as [string, string]));
  }

  async filterByGroup(code: string): Promise<void> {
    await this.page.getByRole('combobox', { name: '試験団体', exact: true }).selectOption(code);
    await this.page.getByRole('button', { name: '絞り込む' }).click();
  }

  row(loginId: string): Locator {
    return this.page.getByTestId('accounts-table').getByRole('row').filter({ hasText: loginId });
  }

  async disable(loginId: string): Promise<void> {
    await this.page.getByRole('button', { name: `${loginId} を無効にする` }).click();
    await this.page.getByRole('dialog').getByRole('button', { name: 'OK' }).click();
    await expect(this.row(loginId).getByText('無効', { exact: true })).toBeVisible();
  }
}

async function readDownload(download: Download): Promise<string> {
  const stream = await download.createReadStream();
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
