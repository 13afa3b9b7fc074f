// Recording benchmark: a RECORD_S-second recording (default 600 s, a ten-minute exam) with an
// OUTAGE_S-second outage in the middle (default 120 s; e.g. RECORD_S=120 OUTAGE_S=30 for a quick run). Prints
// recorded vs uploaded bytes, the time to drain the backlog after the outage, peak IndexedDB use
// (navigator.storage.estimate) and the browser's CPU (utime+stime of its process tree) while recording and
// publishing. It prints figures and never fails. Usage: node bench/recording.mjs  (after npm run build)
import os from 'node:os';
import path from 'node:path';
import { chromium } from '@playwright/test';
import { register } from 'tsx/esm/api';
import { jsonPost, startServer } from './bench-server.mjs';

// The steps shared with e2e/recording.spec.ts (TypeScript, loaded through tsx as in bench/search.mjs).
register();
const { CHROMIUM_ARGS, CHROMIUM_PATH } = await import('../e2e/support/chromium.ts');
const { acceptIdentityCheck, isRecordingStart, prepareRecordingSitting, processes } =
  await import('../e2e/support/recording.ts');

const RECORD_S = Number(process.env.RECORD_S ?? 600);
const OUTAGE_S = Number(process.env.OUTAGE_S ?? 120);
const PORT = Number(process.env.BENCH_PORT ?? 8191);
const BASE = `http://127.0.0.1:${PORT}`;
const TESTER = process.env.BENCH_TESTER ?? 'tester09';
const URL_KEY = 'bench-recording';
const CLK = 100; // USER_HZ
// Hard bound on the whole run: set-up (server, login, checks) plus the recording plus the final drain.
const DEADLINE_S = Number(process.env.DEADLINE_S ?? RECORD_S + 150);
const T_START = Date.now();
const step = (what) => console.log(`[${((Date.now() - T_START) / 1000).toFixed(0)} s] ${what}`);

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const mb = (n) => `${(n / 1e6).toFixed(2)} MB`;

/** CPU ticks of every process under `rootPid` except the subtrees of `skip` (and `rootPid` itself). */
function treeCpuTicks(rootPid, skip = []) {
  const kids = new Map();
  const ticks = new Map();
  for (const p of processes()) {
    ticks.set(p.pid, p.ticks);
    kids.set(p.ppid, [...(kids.get(p.ppid) ?? []), p.pid]);
  }
  let sum = 0;
  const stack = (kids.get(rootPid) ?? []).filter((p) => !skip.includes(p));
  while (stack.length) {
    const p = stack.pop();
    sum += ticks.get(p) ?? 0;
    stack.push(...(kids.get(p) ?? []));
  }
  return sum;
}

const post = jsonPost(BASE);

let cleanup = async () => undefined;
const watchdog = setTimeout(() => {
  console.log(`bench did not finish within ${DEADLINE_S} s: stopped (figures above are partial)`);
  void cleanup().finally(() => process.exit(0));
}, DEADLINE_S * 1000);

async function main() {
  console.log(
    `Recording bench: ${RECORD_S} s recording, ${OUTAGE_S} s outage in the middle (scale 1/${(600 / RECORD_S).toFixed(1)} of 10 min / 2 min)`,
  );
  const dataDir = path.join(os.tmpdir(), `proctor-bench-rec-${process.pid}`);
  let browser;
  let server = null;
  cleanup = async () => {
    await browser?.close().catch(() => undefined);
    server?.stop();
  };
  try {
    step('starting the server');
    // The product's part size (spec: 5,242,880 bytes) unless the caller picks another.
    server = await startServer({
      port: PORT,
      dataDir,
      env: { RECORDING_PART_SIZE: process.env.RECORDING_PART_SIZE ?? '5242880' },
    });
    browser = await chromium.launch({
      executablePath: CHROMIUM_PATH,
      args: [...CHROMIUM_ARGS],
    });
    const context = await browser.newContext({ permissions: ['camera', 'microphone'], locale: 'ja-JP' });
    const page = await context.newPage();
    let recorded = 0;
    let uploaded = 0;
    await page.exposeFunction('__recordingChunkTap', (c) => {
      recorded += Buffer.from(c.data, 'base64').length;
    });
    page.on('requestfinished', (req) => {
      if (req.method() === 'PUT' && req.url().includes('partNumber='))
        void req.response().then((r) => {
          if (r?.status() === 200) uploaded += req.postDataBuffer()?.length ?? 0;
        });
    });
    page.on('dialog', (d) => void d.accept());
    const problems = [];
    page.on('console', (m) => {
      if ((m.type() === 'error' || m.type() === 'warning') && problems.length < 20)
        problems.push(`${m.type()}: ${m.text().slice(0, 200)}`);
    });
    // A sitting of its own (recording on, no ID-card check), as e2e/recording.spec.ts does.
    const admin = await prepareRecordingSitting(post, URL_KEY, 'Recording bench');
    step('login');
    await page.goto(`${BASE}/s/${URL_KEY}`);
    // Selectors of e2e/pages/login-page.ts and e2e/pages/tester-pages.ts.
    await page.locator('input[name="loginId"]').fill(TESTER);
    await page.locator('input[name="password"]').fill('demo-pass');
    await page.locator('main button[type="submit"]').click();
    step('env-setting');
    await page.locator('body#PRE00002').waitFor({ timeout: 30_000 });
    await page.locator('[data-testid="camera-state"][data-state="2"]').waitFor({ timeout: 20_000 });
    await page.locator('[data-testid="microphone-state"][data-state="2"]').waitFor({ timeout: 10_000 });
    await page.locator('[data-testid="popup-state"][data-state="ok"]').waitFor({ timeout: 10_000 });
    await page.locator('#env-terms-agree').check();
    await page.getByTestId('env-next').click();
    await page.waitForURL(/\/(identification|examining)$/, { timeout: 30_000 });
    if (page.url().endsWith('/identification')) {
      step('identification (a checker accepts through the API)');
      await page.locator('body#PRE00003').waitFor();
      for (let i = 0; i < 4; i += 1) await page.locator(`#check-${i}`).check();
      await page.getByTestId('request-check').click();
      await acceptIdentityCheck(post, TESTER);
    }
    step('examining');
    await page.waitForURL(/\/examining$/, { timeout: 60_000 });
    await page.locator('body#PRE00004').waitFor();
    await page.locator('#exam-notes-agree').check();
    const popupP = page.waitForEvent('popup');
    const startedP = page.waitForResponse(isRecordingStart, { timeout: 30_000 });
    await page.getByTestId('exam-login').click();
    await popupP;
    await page.locator('[data-testid="exam-phase"][data-phase="examing"]').waitFor({ timeout: 30_000 });
    const started = (await (await startedP).json()).result ?? {};
    const partSize = Number(started.part_size) || 5_242_880;
    console.log(`recording started: record ${started.record_id}, part size ${partSize} bytes`);
    // The browser is this process's child (its renderer, GPU and utility processes below it); the server
    // is the other child and is left out.
    const browserTicks = () => treeCpuTicks(process.pid, [server.server.pid]);
    const cpu0 = browserTicks();
    const t0 = Date.now();
    let peak = 0;
    const sample = async () => {
      const e = await page
        .evaluate(async () => {
          const est = await navigator.storage.estimate();
          return { usage: est.usage ?? 0, idb: est.usageDetails?.indexedDB ?? null };
        })
        .catch(() => ({ usage: 0, idb: null }));
      peak = Math.max(peak, e.idb ?? e.usage);
    };
    const half = ((RECORD_S - OUTAGE_S) / 2) * 1000;
    while (Date.now() - t0 < half) {
      await sample();
      await sleep(2000);
    }
    step(`offline for ${OUTAGE_S} s (recorded ${mb(recorded)}, uploaded ${mb(uploaded)})`);
    await context.setOffline(true);
    const outEnd = Date.now() + OUTAGE_S * 1000;
    while (Date.now() < outEnd) {
      await sample();
      await sleep(2000);
    }
    await context.setOffline(false);
    step(`back online (recorded ${mb(recorded)}, uploaded ${mb(uploaded)})`);
    const backAt = Date.now();
    const behindAtReturn = recorded - uploaded;
    const uploadedAtReturn = uploaded;
    // Drained: every full part of what was recorded by the return is confirmed (the rest waits for more
    // bytes to fill a part, outage or not).
    const target = Math.floor(recorded / partSize) * partSize;
    let drainedAt = uploaded >= target ? backAt : null;
    let lastSample = 0;
    while (Date.now() - t0 < RECORD_S * 1000) {
      if (Date.now() - lastSample >= 2000) {
        await sample();
        lastSample = Date.now();
      }
      if (drainedAt === null && uploaded >= target) drainedAt = Date.now();
      await sleep(100);
    }
    const cpu1 = browserTicks();
    const wall = (Date.now() - t0) / 1000;
    const recordedAtEnd = recorded;
    const uploadedAtEnd = uploaded;
    // Finish the exam: the recorder stops, the last part goes and the upload completes (bounded wait).
    step('finishing the exam');
    let finishedIn = null;
    let movieStatus = '?';
    try {
      const fin0 = Date.now();
      await page.getByTestId('exam-finish').click();
      await page.getByRole('dialog').getByRole('button', { name: 'OK' }).click();
      // Completed when the server's record leaves '00' (uploading): the multipart upload was completed.
      while (Date.now() - fin0 < 45_000) {
        const r = await fetch(`${BASE}/api/v1/get_onetime_uri.php?record_id=${started.record_id}`, {
          headers: { authorization: `Bearer ${admin}` },
        })
          .then((x) => x.json())
          .catch(() => ({}));
        movieStatus = r.result?.movie_status ?? movieStatus;
        if (r.result && movieStatus !== '00') {
          finishedIn = (Date.now() - fin0) / 1000;
          break;
        }
        await sleep(500);
      }
      if (finishedIn === null) {
        const st = page.getByTestId('recording-status');
        const attr = (n) => st.getAttribute(n, { timeout: 1000 }).catch(() => null);
        console.log(
          `  (not completed: page ${new URL(page.url()).pathname}, recording ${await attr('data-phase')}, parts ${await attr('data-parts-done')}/${await attr('data-parts-total')})`,
        );
        for (const p of problems.slice(-8)) console.log(`  console ${p}`);
      }
    } catch (e) {
      console.log(`  (finish: ${e instanceof Error ? e.message.split('\n')[0] : String(e)})`);
    }
    // The last part's response is counted asynchronously (requestfinished → response()): let it land.
    for (let i = 0; i < 50 && uploaded < recorded; i++) await sleep(100);
    const scale = 600 / RECORD_S;
    console.log(
      `--- figures (scale 1/${scale.toFixed(1)}: ${RECORD_S} s recording, ${OUTAGE_S} s outage) ---`,
    );
    console.log(`recorded bytes (stored chunks) when recording time was up: ${mb(recordedAtEnd)}`);
    console.log(`uploaded bytes (confirmed parts) at that moment: ${mb(uploadedAtEnd)}`);
    console.log(
      `after finishing: recorded ${mb(recorded)}, uploaded ${mb(uploaded)}, ${finishedIn === null ? `upload not completed in 45 s (movie_status ${movieStatus})` : `upload completed ${finishedIn.toFixed(1)} s after the finish click (movie_status ${movieStatus})`}`,
    );
    console.log(
      `backlog when the network came back: ${mb(behindAtReturn)} recorded but not confirmed (${Math.max(0, Math.round((target - uploadedAtReturn) / partSize))} full part(s) waiting)`,
    );
    console.log(
      `time to drain the backlog (within one part): ${drainedAt ? ((drainedAt - backAt) / 1000).toFixed(2) + ' s' : 'not drained before the end'}`,
    );
    console.log(`peak IndexedDB use (navigator.storage.estimate usageDetails.indexedDB): ${mb(peak)}`);
    console.log(
      `browser CPU while recording and publishing: ${(((cpu1 - cpu0) / CLK / wall) * 100).toFixed(1)} % of one core (all browser processes, ${wall.toFixed(0)} s; ${os.cpus().length} cores)`,
    );
  } catch (e) {
    console.log(`bench did not finish: ${e instanceof Error ? e.message : String(e)}`);
  } finally {
    await cleanup();
  }
}

await main();
clearTimeout(watchdog);
