import { readFile } from 'node:fs/promises';
import { expect, test, type APIRequestContext, type Browser, type Page } from '@playwright/test';
import { LoginPage } from './pages/login-page';
import {
  AnalysisRequestPage,
  ExamineeDetailPage,
  ExamineeSearchPage,
  RecordingPlayer,
} from './pages/manager-search';
import { TesterEnvSettingPage, TesterExaminingPage, TesterIdentificationPage } from './pages/tester-pages';
import { AccessLimitPage, ShortUrlFormPage } from './pages/manager-settings';
import { expectBodyId, expectNoAxeViolations } from './helpers';
import { pdfText } from './support/pdf-text';

/** Text compared as a reader sees it: compatibility forms folded (pdf.js may give CJK radicals), no spaces. */
const norm = (s: string) => s.normalize('NFKC').replace(/\s+/g, '');

/** An instant as the deployment's wall clock (Asia/Tokyo by default), `yyyy-MM-dd HH:mm:ss`. */
const tokyo = (iso: string) =>
  new Intl.DateTimeFormat('sv-SE', {
    timeZone: 'Asia/Tokyo',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hourCycle: 'h23',
  }).format(new Date(iso));

// Accounts of this spec only (the other specs use other ones; tests run with 2 workers): sysadmin01,
// manager01, tester10 whose login creates the sitting searched for, and tester07 with checker03 who make a
// recorded sitting with a marking.
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

async function apiLogin(request: APIRequestContext, loginId: string): Promise<string> {
  const r = await request.post('/api/v1/login.php', { data: { login_id: loginId, password: 'demo-pass' } });
  return ((await r.json()) as { result: { access_token: string } }).result.access_token;
}

// An 8×8 JPEG: the marking's captured image.
const TINY_JPEG =
  '/9j/2wBDABALDA4MChAODQ4SERATGCgaGBYWGDEjJR0oOjM9PDkzODdASFxOQERXRTc4UG1RV19iZ2hnPk1xeXBkeFxlZ2P/2wBDARESEhgVGC8aGi9jQjhCY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2P/wAARCAAIAAgDASIAAhEBAxEB/8QAFQABAQAAAAAAAAAAAAAAAAAAAAX/xAAUEAEAAAAAAAAAAAAAAAAAAAAA/8QAFQEBAQAAAAAAAAAAAAAAAAAABAb/xAAUEQEAAAAAAAAAAAAAAAAAAAAA/9oADAMBAAIRAxEAPwCOACqH/9k=';

test('plays the recording from a marking', async ({ page, context, browser, request }) => {
  test.setTimeout(360_000);
  const TESTER = 'tester07';
  const checker = await apiLogin(request, 'checker03');
  const checkerAuth = { Authorization: `Bearer ${checker}` };
  // checker03 stays on duty, polling as its console would, until the exam is over: a checker silent for
  // 3 × matchingTimeout is counted gone and its examinee passed on, and the marking below would be refused.
  const onDuty = setInterval(() => {
    request.post('/api/v1/matching.php', { data: {}, headers: checkerAuth }).catch(() => undefined);
  }, 3000);

  // The examinee sits a recorded exam on the demo short URL (is_record 1, monitor identity check).
  page.on('dialog', (d) => void d.accept());
  await context.grantPermissions(['camera', 'microphone']);
  await page.goto('/s/demo-tester');
  await new LoginPage(page).login(TESTER);
  const env = new TesterEnvSettingPage(page);
  await env.expectReady();
  await env.agreeAndNext();
  await expect(page).toHaveURL(/\/(examining|identification)$/, { timeout: 30_000 });
  let testerId = 0;
  let testId = 0;
  let checkerLogin = 'checker03';
  const admin = await apiLogin(request, ADMIN);
  // checker03 polls so that someone is on duty; the examinee may still land on another checker that another
  // spec keeps online, so the assignment is read from the managers' view, whoever the checker is.
  const findTester = async () => {
    await request.post('/api/v1/matching.php', { data: {}, headers: checkerAuth });
    const r = await request.get('/api/v1/checkers/monitoring.php', {
      headers: { Authorization: `Bearer ${admin}` },
    });
    const b = (await r.json()) as {
      result?: {
        matchings: {
          checker: { login_id: string };
          testers: { id: number; test_id: number; login_id: string }[];
        }[];
      };
    };
    for (const m of b.result?.matchings ?? []) {
      const t = m.testers.find((x) => x.login_id === TESTER);
      if (t) {
        testerId = t.id;
        testId = t.test_id;
        checkerLogin = m.checker.login_id;
      }
    }
    return testerId;
  };
  if (page.url().endsWith('/identification')) {
    await new TesterIdentificationPage(page).requestCheck();
    await expect.poll(findTester, { timeout: 40_000, intervals: [1000] }).toBeGreaterThan(0);
    await expect
      .poll(
        async () =>
          (
            await request.post('/api/v1/tester/status.php', {
              data: { tester_id: testerId, status: 3 },
              // A system manager may accept too (the examinee's checker may be another spec's).
              headers: { Authorization: `Bearer ${admin}` },
            })
          ).status(),
        { timeout: 30_000, intervals: [2000] },
      )
      .toBe(200);
  }
  await expect(page).toHaveURL(/\/examining$/, { timeout: 30_000 });
  const exam = new TesterExaminingPage(page);
  await exam.agreeNotes();
  const started = page.waitForResponse(
    (r) => r.url().includes('/tester/recording.php') && r.request().postDataJSON()?.method === 'PUT',
  );
  const examWindow = await exam.openExamSystem();
  const recordId = ((await (await started).json()) as { result: { record_id: number } }).result.record_id;
  const recordingStart = Date.now();
  if (testerId === 0)
    await expect.poll(findTester, { timeout: 40_000, intervals: [1000] }).toBeGreaterThan(0);

  // Eight seconds in, the checker marks the examinee (with a captured image).
  const conditions = await request.get('/api/v1/testers/conditions.php', {
    headers: { Authorization: `Bearer ${await apiLogin(request, ADMIN)}` },
  });
  const markId = ((await conditions.json()) as { result: { marks: { id: number }[] } }).result.marks[0]!.id;
  await page.waitForTimeout(Math.max(0, 8_000 - (Date.now() - recordingStart)));
  const markedAtS = (Date.now() - recordingStart) / 1000;
  const markingChecker =
    checkerLogin === 'checker03'
      ? checkerAuth
      : { Authorization: `Bearer ${await apiLogin(request, checkerLogin)}` };
  const marked = await request.post('/api/v1/tester/markings.php', {
    headers: markingChecker,
    data: { tester_id: testerId, mark: markId, image: TINY_JPEG, content_type: 'image/jpeg' },
  });
  expect(marked.status()).toBe(200);
  await page.waitForTimeout(Math.max(0, 20_000 - (Date.now() - recordingStart)));
  await exam.finish();
  await expect(page).toHaveURL(/\/exam-end$/, { timeout: 30_000 });
  clearInterval(onDuty);
  // The exam is over: its window is closed, so nothing more can be answered unwatched.
  await expect.poll(() => examWindow.isClosed()).toBe(true);

  // The examinee's "download" is its own report: printed to PDF, it names the examinee and the marking.
  await expect(page.getByTestId('exam-end-report')).toBeEnabled({ timeout: 20_000 });
  const examineeName = (await page.getByTestId('report-name').textContent()) ?? '';
  expect(examineeName).not.toBe('');
  const ownPdf = norm(await pdfText(await page.pdf({ format: 'A4', printBackground: true })));
  expect(ownPdf).toContain(norm(examineeName));
  expect(ownPdf).toContain(norm('受験者レポート'));
  // Only the report is printed (not the page's buttons), and no pass/fail decision is in the examinee's copy.
  expect(ownPdf).not.toContain(norm('ログアウト'));
  expect(ownPdf).not.toContain(norm('合否'));

  // The recording is complete and its duration fixed.
  const adminAuth = { Authorization: `Bearer ${admin}` };
  await expect
    .poll(
      async () => {
        const r = await request.get(`/api/v1/get_onetime_uri.php?record_id=${recordId}`, {
          headers: adminAuth,
        });
        const b = (await r.json()) as { result?: { movie_status: string; duration_ms: number | null } };
        return b.result?.movie_status === '02' && (b.result.duration_ms ?? 0) > 0;
      },
      { timeout: 60_000, intervals: [1000] },
    )
    .toBe(true);

  // A system manager opens the sitting and jumps to the marking from the timeline.
  const mgr = await browser.newContext();
  const mpage = await mgr.newPage();
  await new LoginPage(mpage).open();
  await new LoginPage(mpage).login(ADMIN);
  await expect(mpage).toHaveURL(/\/management$/);
  await mpage.goto(`/examinees/${testId}`);
  await expect(mpage.getByTestId('pass-value')).toBeVisible();
  const player = new RecordingPlayer(mpage);
  await expect(player.video()).toBeVisible({ timeout: 20_000 });
  const duration = await player.duration();
  expect(Number.isFinite(duration) && duration > 0).toBe(true);
  expect(await player.currentTime()).toBeLessThan(1);
  await player.clickMarking();
  await expect
    .poll(() => player.currentTime(), { timeout: 15_000 })
    .toBeGreaterThan(Math.max(0, markedAtS - 4));
  expect(await player.currentTime()).toBeLessThan(markedAtS + 4);

  // The manager asks for an AI analysis of this examinee's recording from the search results and
  // follows its progress in the request history until it is done; the AI markings then show in the detail.
  const search = new ExamineeSearchPage(mpage);
  await search.open();
  await search.searchByLoginId(TESTER);
  await expect(search.rows().first()).toBeVisible();
  await mpage.getByRole('checkbox', { name: 'このページの受験者をすべて選択' }).check();
  await mpage.getByRole('button', { name: /^選択した受験者でデータ抽出/ }).click();
  const analysis = new AnalysisRequestPage(mpage);
  const inseq = `E2E-${Date.now()}`;
  await analysis.request(inseq, '5秒ごと');
  const row = analysis.row(inseq);
  await expect(row).toBeVisible();
  await expect(row.getByRole('progressbar', { name: `依頼番号${inseq}の進捗` })).toBeVisible();
  await expectNoAxeViolations(mpage);
  // The page reads the history again by itself while the request is waiting or running.
  await expect(row).toHaveAttribute('data-status', 'done', { timeout: 90_000 });
  await expect(row).toContainText('完了');
  await expect(row).toContainText(/(\d+)件中\1件の分析が完了/);
  // Chromium's fake camera shows no face: the whole recording counts as looking away (eye_rot).
  await mpage.goto(`/examinees/${testId}`);
  await expect(mpage.getByTestId('ai-marking').first()).toBeVisible({ timeout: 20_000 });

  // The print-ready report of the sitting, printed to an A4 PDF: the examinee's name, the
  // marking with its time (Tokyo wall clock), the AI markings, the timeline and the decision are in it.
  const detailRes = await request.get(`/api/v1/tester/detail.php?test_id=${testId}`, { headers: adminAuth });
  const d = (
    (await detailRes.json()) as {
      result: {
        exam_name: string;
        markings: { message: string; marking_at: string }[];
        examinee_logs: { event: string; created_at: string }[];
      };
    }
  ).result;
  await mpage.getByTestId('open-report').click();
  await expect(mpage).toHaveURL(new RegExp(`/examinees/${testId}/report$`));
  await expect(mpage.getByTestId('report-name')).toHaveText(d.exam_name);
  await expect(mpage.getByTestId('report-decision')).toBeVisible();
  await expectNoAxeViolations(mpage);
  await mpage.emulateMedia({ media: 'print' });
  const pdf = await mpage.pdf({ format: 'A4', printBackground: true, preferCSSPageSize: true });
  expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
  const text = norm(await pdfText(pdf));
  expect(text).toContain(norm(d.exam_name));
  expect(text).toContain(norm(d.markings[0]!.message));
  expect(text).toContain(norm(tokyo(d.markings[0]!.marking_at)));
  expect(text).toContain(norm('視線')); // the AI markings (eye_rot)
  const start = d.examinee_logs.find((l) => l.event === 'exam_start');
  expect(start).toBeDefined();
  expect(text).toContain(norm('試験開始'));
  expect(text).toContain(norm(tokyo(start!.created_at)));
  expect(text).toContain(norm('合否'));
  // No raw ISO time, and the management menu and buttons are not printed.
  expect(text).not.toMatch(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/);
  expect(text).not.toContain(norm('印刷・PDFで保存'));
  await mgr.close();
});
