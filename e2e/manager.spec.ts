import { readFile } from 'node:fs/promises';
import { expect, test, type Browser, type Page } from '@playwright/test';
import { LoginPage } from './pages/login-page';
import { ExamineeDetailPage, ExamineeSearchPage } from './pages/manager-search';
import { AccessLimitPage, ShortUrlFormPage } from './pages/manager-settings';
import { expectBodyId, expectNoAxeViolations } from './helpers';

// Accounts of this spec only (the other specs use other ones; tests run with 2 workers): sysadmin01,
// manager01, and tester10 whose login creates the sitting searched for.
const ADMIN = 'sysadmin01';

async function loginAsAdmin(page: Page): Promise<void> {
  const login = new LoginPage(page);
  await login.open();
  await login.login(ADMIN);
  await expect(page).toHaveURL(/\/management$/);
  await expectBodyId(page, 'PRE00007');
}

async function managerLogin(browser: Browser) {
  const ctx = await browser.newContext();
  const page = await ctx.newPage();
  const login = new LoginPage(page);
  await login.open();
  await login.login('manager01');
  return { ctx, page };
}

test('a system manager searches, opens an examinee, sets pass then fail, and exports CSV', async ({
  page,
  request,
}) => {
  // A sitting for tester10 exists once it has logged in.
  const res = await request.post('/api/v1/login.php', {
    data: { login_id: 'tester10', password: 'demo-pass' },
  });
  expect(res.status()).toBe(200);

  await loginAsAdmin(page);
  await expect(page.getByRole('link', { name: '結果検索' })).toBeVisible();
  await expectNoAxeViolations(page);

  const search = new ExamineeSearchPage(page);
  await search.open();
  await search.searchByLoginId('tester10');
  await expect(search.rows().first()).toBeVisible();
  await expectNoAxeViolations(page);

  const download = await search.downloadCsv();
  expect(download.suggestedFilename()).toMatch(/^exam_user_resultinfo_csv_\d+\.csv$/);
  const bytes = await readFile(await download.path());
  expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
  const lines = bytes.subarray(3).toString('utf8').split(/\r?\n/);
  expect(lines[0]).toContain('受験ID');
  expect(lines[0]).toContain('ログインID');
  expect(lines.slice(1).some((l) => l.includes('tester10'))).toBe(true);

  await search.openFirstResult();
  const detail = new ExamineeDetailPage(page);
  await expect(detail.passValue()).toBeVisible();
  await expectNoAxeViolations(page);
  await detail.decide(true);
  await expect(detail.passValue()).toHaveText('合格');
  await detail.decide(false);
  await expect(detail.passValue()).toHaveText('不合格');
});

test('a registered short URL opens at once as an examinee, in the URL’s language', async ({
  page,
  browser,
}) => {
  await loginAsAdmin(page);
  const form = new ShortUrlFormPage(page);
  await form.open();
  const key = `e2e-mgr-${Date.now()}`;
  const url = await form.register(key, 'en');
  expect(url).toContain(`/s/${key}`);

  const ctx = await browser.newContext();
  const examinee = await ctx.newPage();
  await examinee.goto(new URL(url).pathname);
  await expect(examinee).toHaveURL(/\/login$/);
  await expectBodyId(examinee, 'PRE00001');
  await expect.poll(() => examinee.evaluate(() => document.documentElement.lang)).toBe('en');
  await ctx.close();
});

test('an IP limit for test managers refuses their login until it is removed', async ({ page, browser }) => {
  await loginAsAdmin(page);
  const limits = new AccessLimitPage(page);
  await limits.open();
  await limits.add('10.1.2.3', 3);
  try {
    const refused = await managerLogin(browser);
    await expect(refused.page.getByRole('alert')).toContainText(
      'このIPアドレスからのアクセスは許可されていません。',
    );
    await expect(refused.page).toHaveURL(/\/login$/);
    await refused.ctx.close();
  } finally {
    await limits.remove('10.1.2.3');
  }
  const allowed = await managerLogin(browser);
  await expect(allowed.page).toHaveURL(/\/examinees$/);
  await allowed.ctx.close();
});
