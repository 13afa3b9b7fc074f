import { expect, test } from '@playwright/test';
import { expectBodyId } from './helpers';

// Attacks that need a real browser (issue: security audit). Each test is named after what the attacker does.

test('someone reads the address bar, history, storage and Referer after a JT start-up: no password anywhere', async ({
  page,
}) => {
  const password = 'demo-pass';
  const referers: string[] = [];
  page.on('request', (r) => {
    const ref = r.headers()['referer'];
    if (ref) referers.push(ref);
  });
  await page.goto('/close');
  await page.goto(`/?actor=1&is_mc_startup=1&login_id=tester03&password=${password}&lang=ja`);
  await expect(page).toHaveURL(/\/env-setting$/);
  await expectBodyId(page, 'PRE00002');

  expect(referers.filter((r) => r.includes(password))).toEqual([]);
  const storage = await page.evaluate(
    () => JSON.stringify({ ...sessionStorage }) + JSON.stringify({ ...localStorage }),
  );
  expect(storage).not.toContain(password);
  expect(storage).toContain('tester03'); // the start-up parameters themselves are kept (spec §2)

  // Back: the start-up entry of the history no longer holds the password.
  await page.goBack();
  expect(page.url()).not.toContain(password);
  const response = await page.request.get('/?actor=1');
  expect(response.headers()['referrer-policy']).toBe('no-referrer');
});

test('a crafted start-up URL plants a phishing "forgot password" link and a fake server badge: both are ignored', async ({
  page,
}) => {
  await page.goto(
    '/?actor=2&lang=ja&password_url=https%3A%2F%2Fevil.example%2Fphish&target=https%3A%2F%2Flogin.bank.example%2F',
  );
  await expect(page).toHaveURL(/\/login$/);
  await expectBodyId(page, 'PRE00001');
  const links = await page.locator('a').evaluateAll((as) => as.map((a) => (a as HTMLAnchorElement).href));
  expect(links.filter((h) => h.includes('evil.example'))).toEqual([]);
  await expect(page.getByRole('banner')).not.toContainText('login.bank.example');
});
