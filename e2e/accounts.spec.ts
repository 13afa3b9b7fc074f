import { expect, test, type Browser } from '@playwright/test';
import { LoginPage } from './pages/login-page';
import { AccountsPage } from './pages/accounts-page';
import { expectBodyId, expectNoAxeViolations } from './helpers';

// Accounts of this spec only: sysadmin01 (also used by the manager spec, each with its own session), the group
// E2EACC and the accounts e2e-acc-* it imports.

async function loginInNewContext(browser: Browser, loginId: string, password: string) {
  const ctx = await browser.newContext();
  const page = await ctx.newPage();
  const login = new LoginPage(page);
  await login.open();
  await login.login(loginId, password);
  return { ctx, page };
}

test('a system manager imports a term’s accounts from CSV on the Accounts page; an imported examinee logs in', async ({
  page,
  browser,
}) => {
  const login = new LoginPage(page);
  await login.open();
  await login.login('sysadmin01');
  await expect(page).toHaveURL(/\/management$/);
  const accounts = new AccountsPage(page);
  await accounts.openFromMenu();
  await expectBodyId(page, 'PRE00007');
  await expectNoAxeViolations(page);

  await accounts.createGroup('E2EACC', 'E2E 大学');

  // As Excel's "CSV UTF-8" writes it: a BOM and CRLF. Line 4 is invalid (actor 9).
  const csv =
    '\uFEFFlogin_id,name,actor,group_code,password\r\n' +
    'e2e-acc-01,受験 一郎,1,E2EACC,given-pass-01\r\n' +
    'e2e-acc-02,受験 二郎,1,E2EACC,\r\n' +
    'e2e-acc-03,誤り 三郎,9,E2EACC,\r\n';
  await accounts.chooseCsv('term.csv', csv);
  await expect(page.getByText('3行：新規 2件、更新 0件、変更なし 0件')).toBeVisible();
  await expect(accounts.errors().getByRole('row', { name: /4 e2e-acc-03 actor は 1〜5/ })).toBeVisible();
  await expect(accounts.importButton()).toBeDisabled();
  await expectNoAxeViolations(page);

  await accounts.skipInvalid();
  await expect(page.getByText('不正な行1行は登録されません。')).toBeVisible();
  await expect(accounts.importButton()).toBeEnabled();
  const passwords = await accounts.importAndDownloadPasswords();
  await expect(page.getByTestId('import-done')).toContainText('新規 2件、更新 0件、変更なし 0件、除外 1件');
  // Generated only for the row without a password, and offered once.
  expect(Object.keys(passwords)).toEqual(['e2e-acc-02']);
  await expect(page.getByRole('button', { name: '生成したパスワードをダウンロード' })).toHaveCount(0);

  await accounts.filterByGroup('E2EACC');
  await expect(accounts.row('e2e-acc-01')).toContainText('受験 一郎');
  await expect(accounts.row('e2e-acc-02')).toContainText('受験者');
  await expect(page.getByTestId('accounts-table').getByRole('row')).toHaveCount(3);

  // The imported examinee logs in with the downloaded password and lands on its first page.
  const examinee = await loginInNewContext(browser, 'e2e-acc-02', passwords['e2e-acc-02']!);
  await expect(examinee.page).toHaveURL(/\/env-setting$/);
  await expectBodyId(examinee.page, 'PRE00002');
  await examinee.ctx.close();

  // Disabled on the page: the other imported examinee is refused at login.
  await accounts.disable('e2e-acc-01');
  const refused = await loginInNewContext(browser, 'e2e-acc-01', 'given-pass-01');
  await expect(
    refused.page
      .getByRole('alert')
      .filter({ hasText: /ログインID|パスワード/ })
      .first(),
  ).toBeVisible();
  await expect(refused.page).toHaveURL(/\/login/);
  await refused.ctx.close();
});
