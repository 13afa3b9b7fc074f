// Recording benchmark (issue #5), scaled down: a RECORD_S-second recording (default 120 s) with an
// OUTAGE_S-second outage in the middle (default 30 s; the full scale is 600 s with 120 s). Prints
// recorded vs uploaded bytes, the time to drain the backlog after the outage, peak IndexedDB use
// (navigator.storage.estimate) and the browser's CPU (utime+stime of its process tree) while recording and
// publishing. It prints figures and never fails. Usage: node bench/recording.mjs  (after npm run build)
import { spawn } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from '@playwright/test';

const RECORD_S = Number(process.env.RECORD_S ?? 120);
const OUTAGE_S = Number(process.env.OUTAGE_S ?? 30);
const PORT = Number(process.env.BENCH_PORT ?? 8191);
const BASE = `http://127.0.0.1:${PORT}`;
const TESTER = process.env.BENCH_TESTER ?? 'tester09';
const CLK = 100; // USER_HZ

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const mb = (n) => `${(n / 1e6).toFixed(2)} MB`;

function treeCpuTicks(rootPid) {
  const kids = new Map();
  const ticks = new Map();
  for (const d of readdirSync('/proc').filter((x) => /^\d+$/.test(x))) {
    try {
      const s = readFileSync(`/proc/${d}/stat`, 'utf8');
      const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
      const ppid = Number(f[1]);
      ticks.set(Number(d), Number(f[11]) + Number(f[12]));
      kids.set(ppid, [...(kids.get(ppid) ?? []), Number(d)]);
    } catch {
      /* gone */
    }
  }
  let sum = 0;
  const stack = [rootPid];
  while (stack.length) {
    const p = stack.pop();
    sum += ticks.get(p) ?? 0;
    stack.push(...(kids.get(p) ?? []));
  }
  return sum;
}

async function api(pathname, body, token) {
  const r = await fetch(`${BASE}${pathname}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body ?? {}),
  });
  return r.json().catch(() => ({}));
}

async function main() {
  console.log(
    `Recording bench: ${RECORD_S} s recording, ${OUTAGE_S} s outage in the middle (scale 1/${(600 / RECORD_S).toFixed(1)} of 10 min / 2 min)`,
  );
  const dataDir = path.join(os.tmpdir(), `proctor-bench-rec-${process.pid}`);
  const server = spawn('node', ['--import', 'tsx', 'server/src/server.ts'], {
    env: {
      ...process.env,
      PORT: String(PORT),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      TEST_HOOKS: '1',
      LOG_LEVEL: 'warn',
      RECORDING_PART_SIZE: '1048576',
    },
    stdio: 'ignore',
  });
  let browser;
  try {
    for (let i = 0; i < 120; i++) {
      if (
        await fetch(`${BASE}/config.json`)
          .then((r) => r.ok)
          .catch(() => false)
      )
        break;
      await sleep(1000);
    }
    await api('/__s3/config', { minPartSize: 65536 });
    browser = await chromium.launch({
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: [
        '--no-sandbox',
        '--use-fake-ui-for-media-stream',
        '--use-fake-device-for-media-stream',
        '--allow-loopback-in-peer-connection',
      ],
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
    await page.goto(`${BASE}/s/demo-tester`);
    await page.locator('input[name="login_id"], #login_id').first().fill(TESTER);
    await page.locator('input[type="password"]').first().fill('demo-pass');
    await page.locator('button[type="submit"]').first().click();
    await page.waitForURL(/env-setting/, { timeout: 30_000 });
    await page.waitForTimeout(3000);
    await page.locator('input[type="checkbox"]').first().check();
    await page.getByRole('button', { name: /次へ/ }).click();
    await page.waitForURL(/identification|examining/, { timeout: 30_000 });
    if (page.url().includes('identification')) {
      await page
        .getByTestId('identity-request')
        .click()
        .catch(() => undefined);
      const checker = (await api('/api/v1/login.php', { login_id: 'checker01', password: 'demo-pass' }))
        .result?.access_token;
      for (let i = 0; i < 40; i++) {
        const m = await api('/api/v1/matching.php', {}, checker);
        const row = m.result?.matchings?.find((x) => x.login_id === TESTER && x.signaling_channel);
        if (
          row &&
          (await api('/api/v1/tester/status.php', { tester_id: row.tester_id, status: 3 }, checker))
            .status === 200
        )
          break;
        await sleep(1000);
      }
    }
    await page.waitForURL(/examining/, { timeout: 60_000 });
    await page.locator('#exam-notes-agree').check();
    const popupP = page.waitForEvent('popup');
    await page.getByTestId('exam-login').click();
    await popupP;
    const pid = browser.process?.()?.pid ?? null;
    const cpu0 = pid ? treeCpuTicks(pid) : 0;
    const t0 = Date.now();
    let peak = 0;
    const sample = async () => {
      const e = await page.evaluate(() => navigator.storage.estimate()).catch(() => ({ usage: 0 }));
      peak = Math.max(peak, e.usage ?? 0);
    };
    const half = ((RECORD_S - OUTAGE_S) / 2) * 1000;
    while (Date.now() - t0 < half) {
      await sample();
      await sleep(2000);
    }
    await context.setOffline(true);
    const outEnd = Date.now() + OUTAGE_S * 1000;
    while (Date.now() < outEnd) {
      await sample();
      await sleep(2000);
    }
    await context.setOffline(false);
    const backAt = Date.now();
    const behindAtReturn = recorded - uploaded;
    let drainedAt = null;
    while (Date.now() - t0 < RECORD_S * 1000) {
      await sample();
      if (drainedAt === null && uploaded >= recorded - 1_100_000) drainedAt = Date.now();
      await sleep(1000);
    }
    const cpu1 = pid ? treeCpuTicks(pid) : 0;
    const wall = (Date.now() - t0) / 1000;
    console.log(`recorded bytes (stored chunks): ${mb(recorded)}`);
    console.log(`uploaded bytes (confirmed parts, before the end): ${mb(uploaded)}`);
    console.log(`backlog when the network came back: ${mb(behindAtReturn)}`);
    console.log(
      `time to drain the backlog (within one part): ${drainedAt ? ((drainedAt - backAt) / 1000).toFixed(1) + ' s' : 'not drained before the end'}`,
    );
    console.log(`peak storage use (navigator.storage.estimate): ${mb(peak)}`);
    console.log(
      `browser CPU while recording and publishing: ${pid ? (((cpu1 - cpu0) / CLK / wall) * 100).toFixed(1) + ' % of one core' : 'n/a'}`,
    );
  } catch (e) {
    console.log(`bench did not finish: ${e instanceof Error ? e.message : String(e)}`);
  } finally {
    await browser?.close().catch(() => undefined);
    server.kill();
  }
}

await main();
