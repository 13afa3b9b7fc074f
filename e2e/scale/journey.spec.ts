import { readFileSync } from 'node:fs';
import { expect, test, type BrowserContext, type Page } from '@playwright/test';
import pg from 'pg';
import { LoginPage } from '../pages/login-page';
import { RecordingPlayer } from '../pages/manager-search';
import { MonitoringConsolePage } from '../pages/monitoring-console';
import { RealExaminee } from '../pages/monitoring-examinee';
import { TesterExaminingPage } from '../pages/tester-pages';

// Several instances on one PostgreSQL, proven (README "Running several instances"). scripts/scale.mjs started
// PostgreSQL, coturn, the stand-ins service, instances A and B (KVS, S3 and STS are the stand-ins, reached as
// AWS) and a load balancer that keeps a browser on the instance its `scale_backend` cookie names and fails over
// to the other when that one is gone. Live video goes only through coturn (ICE_TRANSPORT_POLICY=relay).

const TESTER = 'tester05';
/** A 2×2 PNG: the head shot the examinee stores through A. */
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAEElEQVR4nGP4z8AARAwQCgAf7gP9i18U1AAAAABJRU5ErkJggg==',
  'base64',
);
const CHECKER = 'checker01';
const A_PID = Number(process.env.SCALE_A_PID);
const TURN_LOG = process.env.SCALE_TURN_LOG ?? '';

/** Keeps a browser context on one instance (the balancer's sticky cookie) and records who answered its API calls. */
async function pinTo(ctx: BrowserContext, backend: 'a' | 'b'): Promise<{ servedBy: string[] }> {
  const base = new URL(process.env.SCALE_PROXY_URL ?? 'http://127.0.0.1:8380');
  await ctx.addCookies([{ name: 'scale_backend', value: backend, domain: base.hostname, path: '/' }]);
  const log = { servedBy: [] as string[] };
  ctx.on('response', (r) => {
    if (r.url().startsWith(base.origin) && r.url().includes('/api/v1/'))
      log.servedBy.push(`${r.headers()['x-served-by'] ?? '?'} ${r.status()} ${new URL(r.url()).pathname}`);
  });
  return log;
}

/** The selected ICE candidate pair of each live peer connection on a page: candidate types, protocol, bytes. */
function selectedPairs(page: Page) {
  return page.evaluate(async () => {
    const pcs = (window as unknown as { __pcs: RTCPeerConnection[] }).__pcs ?? [];
    const out: { local: string; remote: string; relayProtocol: string; remotePort: number; bytes: number }[] =
      [];
    for (const pc of pcs) {
      if (pc.connectionState !== 'connected') continue;
      const stats = await pc.getStats();
      const byId = new Map<string, Record<string, unknown>>();
      stats.forEach((s: Record<string, unknown>) => byId.set(s.id as string, s));
      stats.forEach((s: Record<string, unknown>) => {
        if (s.type !== 'candidate-pair' || s.state !== 'succeeded' || !s.nominated) return;
        const l = byId.get(s.localCandidateId as string) ?? {};
        const r = byId.get(s.remoteCandidateId as string) ?? {};
        out.push({
          local: String(l.candidateType),
          remote: String(r.candidateType),
          relayProtocol: String(l.relayProtocol ?? ''),
          remotePort: Number(r.port),
          bytes: Number(s.bytesReceived ?? 0) + Number(s.bytesSent ?? 0),
        });
      });
    }
    return out;
  });
}

test('examinee on A, checker and manager on B; A is killed mid-exam and the sitting carries on through B', async ({
  browser,
}) => {
  test.setTimeout(240_000);
  expect(A_PID, 'SCALE_A_PID (run through scripts/scale.mjs)').toBeGreaterThan(0);

  // The checker on B, its peer connections reachable for their stats.
  const checkerCtx = await browser.newContext();
  const checkerCalls = await pinTo(checkerCtx, 'b');
  const checkerPage = await checkerCtx.newPage();
  await MonitoringConsolePage.hookPeerConnections(checkerPage);
  const console_ = new MonitoringConsolePage(checkerPage);
  await console_.login(CHECKER);

  // The examinee on A: start-up, device checks, identity check accepted on the console, the exam.
  const examinee = new RealExaminee(TESTER);
  let examineeCalls = { servedBy: [] as string[] };
  await examinee.beforeNavigation(browser, async (ctx) => {
    examineeCalls = await pinTo(ctx, 'a');
  });
  await examinee.openToEnvSetting(browser);
  await examinee.startTransmission();
  await expect(console_.paneOf(TESTER)).toBeVisible({ timeout: 30_000 });
  const testerId = await console_.testerIdOf(TESTER);
  await examinee.requestCheck();
  await expect(console_.pane(testerId)).toHaveAttribute('data-auth', 'authenticating', { timeout: 15_000 });
  await console_.decide(testerId, '承認');
  await expect(examinee.page).toHaveURL(/\/examining$/, { timeout: 20_000 });
  const exam = new TesterExaminingPage(examinee.page);
  await exam.agreeNotes();
  const popup = await exam.openExamSystem();
  await expect(popup.locator('#exam')).toBeVisible({ timeout: 15_000 });
  await expect(examinee.page.getByTestId('recording-state')).toHaveText('録画中', { timeout: 20_000 });

  // Live video on the checker (B), relayed by coturn on both sides (the examinee on A is a KVS master on the
  // stand-ins' hub; neither peer has a direct path: relay-only).
  await expect.poll(() => console_.videoWidth(testerId), { timeout: 30_000 }).toBeGreaterThan(0);
  const pairs = await selectedPairs(checkerPage);
  expect(pairs.length).toBeGreaterThan(0);
  for (const p of pairs) expect(p).toMatchObject({ local: 'relay', remote: 'relay', relayProtocol: 'udp' });

  // Acknowledged writes through A and through B before the kill.
  await examinee.sendChat('Aの前に送ったメッセージ');
  await expect(await console_.chatList(testerId)).toContainText('Aの前に送ったメッセージ', {
    timeout: 15_000,
  });
  await console_.closeChat();
  await console_.chat(testerId, 'Bから送った確認');
  // A head shot stored through A (the examinee's own upload), to be shown by B after A is gone.
  const token = await examinee.page.evaluate(
    () => (JSON.parse(sessionStorage.getItem('session') ?? '{}') as { accessToken?: string }).accessToken,
  );
  const headShot = await examinee.page.request.post('/api/v1/tester/head_shot.php', {
    headers: { Authorization: `Bearer ${token}` },
    data: { image: PNG.toString('base64'), content_type: 'image/png' },
  });
  expect(headShot.status()).toBe(200);
  expect(headShot.headers()['x-served-by']).toBe('a');
  await console_.saveMarking(testerId, false);
  const examineeOnA = examineeCalls.servedBy.filter((s) => s.startsWith('a ')).length;
  expect(examineeOnA, examineeCalls.servedBy.join('\n')).toBeGreaterThan(5);
  expect(examineeCalls.servedBy.filter((s) => s.startsWith('b '))).toEqual([]);
  expect(checkerCalls.servedBy.filter((s) => !s.startsWith('b '))).toEqual([]);

  // Instance A dies (SIGKILL: no shutdown, its in-flight requests are cut).
  const framesBefore = await console_.framesDecoded();
  const killedAt = examineeCalls.servedBy.length;
  process.kill(A_PID, 'SIGKILL');

  // The examinee's page carries on through B without a reload: its next calls are answered by B, the exam
  // goes on, recording goes on, and the checker keeps decoding the video (signaling and media never went
  // through A).
  await expect
    .poll(() => examineeCalls.servedBy.slice(killedAt).filter((s) => s.startsWith('b 200')).length, {
      timeout: 30_000,
    })
    .toBeGreaterThan(2);
  await expect(examinee.page).toHaveURL(/\/examining$/);
  await expect(examinee.page.getByTestId('exam-phase')).toHaveAttribute('data-phase', 'examing');
  await expect(examinee.page.getByTestId('recording-state')).toHaveText('録画中');
  await expect.poll(() => console_.framesDecoded(), { timeout: 15_000 }).toBeGreaterThan(framesBefore + 30);
  await examinee.sendChat('Aが止まった後のメッセージ');
  await expect(await console_.chatList(testerId)).toContainText('Aが止まった後のメッセージ', {
    timeout: 15_000,
  });
  await console_.closeChat();
  await expect(examinee.chatItems()).toContainText('Bから送った確認');
  // Nothing told the examinee that anything happened.
  await expect(examinee.alert()).toBeHidden();
  const afterKill = examineeCalls.servedBy.slice(killedAt);
  // What the examinee met, for the report: the calls cut by the kill (502 from the balancer) and none after.
  test.info().annotations.push({
    type: 'calls after the kill',
    description: afterKill.slice(0, 12).join(' | '),
  });

  // The exam ends through B: the recording is sent and completed.
  await popup.close();
  await exam.finish();
  await expect(examinee.page).toHaveURL(/\/exam-end$/, { timeout: 30_000 });

  // The manager on B: the sitting with everything acknowledged before and after the kill, and the recording.
  const managerCtx = await browser.newContext();
  await pinTo(managerCtx, 'b');
  const manager = await managerCtx.newPage();
  await new LoginPage(manager).open();
  await new LoginPage(manager).login('manager01');
  await expect(manager).toHaveURL(/\/examinees$/);
  const db = new pg.Client({ connectionString: process.env.SCALE_PG_URL });
  await db.connect();
  const testId = Number(
    (await db.query(`SELECT id FROM tests WHERE user_id = $1 ORDER BY id DESC LIMIT 1`, [testerId])).rows[0]
      ?.id,
  );
  await db.end();
  await manager.goto(`/examinees/${testId}`);
  const messages = manager.locator('section[aria-labelledby="detail-messages"]');
  await expect(messages).toContainText('Aの前に送ったメッセージ', { timeout: 20_000 });
  await expect(messages).toContainText('Aが止まった後のメッセージ');
  await expect(messages).toContainText('Bから送った確認');
  const head = manager.getByRole('img', { name: '顔写真' });
  await expect.poll(() => head.evaluate((i: HTMLImageElement) => i.naturalWidth)).toBe(2);
  const still = manager.getByTestId('marking').locator('img');
  await expect(still).toHaveCount(1);
  await expect.poll(() => still.evaluate((i: HTMLImageElement) => i.naturalWidth)).toBeGreaterThan(0);
  const player = new RecordingPlayer(manager);
  await expect(player.video()).toBeVisible({ timeout: 60_000 });
  expect(await player.duration()).toBeGreaterThan(5);

  const db2 = new pg.Client({ connectionString: process.env.SCALE_PG_URL });
  await db2.connect();
  const channel = String(
    (await db2.query(`SELECT channel_name FROM matchings WHERE test_id = $1 LIMIT 1`, [testId])).rows[0]
      ?.channel_name,
  );
  await db2.end();
  await managerCtx.close();
  await examinee.close();
  await checkerCtx.close();

  // coturn relayed the media: both ends allocated with the TURN REST credentials GetIceServerConfig minted for
  // this channel (`<expiry>:<channel>.MASTER` and `<expiry>:<channel>.<viewer client id>`), and once the
  // browsers released their allocations coturn reported the bytes it relayed for the examinee's camera.
  const relayed = async () => {
    const log = readFileSync(TURN_LOG, 'utf8');
    const bytes = [
      // `session N: usage: …` (not `peer usage`): rb is what coturn received from the examinee's browser.
      ...log.matchAll(/session \d+: usage: realm=<[^>]*>, username=<\d+:([^>]+)>, rp=\d+, rb=(\d+)/g),
    ]
      .filter((m) => m[1] === `${channel}.MASTER`)
      .reduce((n, m) => n + Number(m[2]), 0);
    return { log, bytes };
  };
  const turn = await relayed();
  expect(turn.log).toContain(`:${channel}.MASTER>: incoming packet ALLOCATE processed, success`);
  expect(turn.log).toMatch(
    new RegExp(`:${channel}\\.viewer-[\\w-]+>: incoming packet ALLOCATE processed, success`),
  );
  await expect.poll(async () => (await relayed()).bytes, { timeout: 30_000 }).toBeGreaterThan(200_000);
});
