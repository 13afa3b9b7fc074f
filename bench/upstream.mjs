// Upstream bench (README "The wider view"): what an examinee sends per configuration — the camera alone, and the
// camera with its entire screen shared (is_screen_record) — at the default recording quality and at a lower video
// level (spec §9 levels apply to each recorded stream). A real server, a checker watching on /monitoring (the
// live copies flow only to a viewer), Chromium's fake camera, microphone and screen. For MEASURE_S seconds
// (default 60) it counts what the recorders wrote per stream (every chunk the page stores is what it must upload)
// and the RTP bytes the examinee's peer connection sent per track (outbound-rtp). It prints figures and never
// fails. Usage: node bench/upstream.mjs (after npm run build; npm run bench -- upstream).
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from '@playwright/test';
import { register } from 'tsx/esm/api';
import { jsonPost, startServer } from './bench-server.mjs';

register();
const { CHROMIUM_ARGS, CHROMIUM_PATH } = await import('../e2e/support/chromium.ts');
const { apiLogin } = await import('../e2e/support/recording.ts');
const { bitratesFor } = await import('../src/media/recording/quality.ts');

const MEASURE_S = Number(process.env.MEASURE_S ?? 60);
const PORT = Number(process.env.BENCH_PORT ?? 8193);
const BASE = `http://127.0.0.1:${PORT}`;
const T_START = Date.now();
const DEADLINE_S = Number(process.env.DEADLINE_S ?? 4 * (MEASURE_S + 120) + 120);
const step = (what) => console.log(`[${((Date.now() - T_START) / 1000).toFixed(0)} s] ${what}`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const mbit = (bitsPerSecond) => `${(bitsPerSecond / 1e6).toFixed(2)}`;

/** The configurations measured: which streams, which video level (null: the spec's fixed 5 Mbit/s). */
const CONFIGS = [
  { name: 'camera', screen: false, level: null, tester: 'tester05' },
  { name: 'camera + screen', screen: true, level: null, tester: 'tester06' },
  { name: 'camera, level 10', screen: false, level: 10, tester: 'tester07' },
  { name: 'camera + screen, level 10', screen: true, level: 10, tester: 'tester08' },
];

const post = jsonPost(BASE);

let cleanup = async () => undefined;
const watchdog = setTimeout(() => {
  console.log(`bench did not finish within ${DEADLINE_S} s: stopped (figures above are partial)`);
  void cleanup().finally(() => process.exit(0));
}, DEADLINE_S * 1000);

/** Outbound RTP bytes of the page's peer connections, per track kind and mid (camera video, audio, screen). */
async function rtpSent(page) {
  return page.evaluate(async () => {
    const out = {};
    for (const pc of globalThis.__pcs ?? []) {
      if (pc.connectionState === 'closed') continue;
      const stats = await pc.getStats();
      stats.forEach((s) => {
        if (s.type !== 'outbound-rtp') return;
        const key = `${s.kind}:${s.mid ?? '?'}`;
        out[key] = (out[key] ?? 0) + (s.bytesSent ?? 0) + (s.headerBytesSent ?? 0);
      });
    }
    return out;
  });
}

/** One configuration: a sitting of its own, the exam started, MEASURE_S seconds counted. */
async function measure(browser, admin, cfg) {
  const key = `bench-upstream-${cfg.name.replace(/[^a-z0-9]+/gi, '-')}`;
  const param = {
    lang: 'ja',
    is_mobile: 0,
    is_mc_startup: 1,
    is_proctor: 1,
    is_auth: 0,
    is_record: 1,
    is_voice_recording: 1,
    is_screen_record: cfg.screen ? 1 : 0,
    region: 'Online',
    exam_name: `Upstream ${cfg.name}`,
    matching_timeout: 5,
    is_ai_auth: 0,
    group: 'DEMO',
    ...(cfg.level ? { video_recording_preference: cfg.level } : {}),
  };
  const inserted = await post('/api/v1/shorten_url/insert.php', { url_key: key, actor: 1, param }, admin);
  if (inserted.status !== 200) throw new Error(`short URL ${key}: HTTP ${inserted.status}`);

  const context = await browser.newContext({ permissions: ['camera', 'microphone'], locale: 'ja-JP' });
  await context.addInitScript(() => {
    const Orig = globalThis.RTCPeerConnection;
    globalThis.__pcs = [];
    globalThis.RTCPeerConnection = class extends Orig {
      constructor(c) {
        super(c);
        globalThis.__pcs.push(this);
      }
    };
  });
  const page = await context.newPage();
  const recorded = { camera: 0, screen: 0 };
  let counting = false;
  await page.exposeFunction('__recordingChunkTap', (c) => {
    if (!counting) return;
    const stream = c.recordingKey.includes('/screen/') ? 'screen' : 'camera';
    recorded[stream] += Buffer.from(c.data, 'base64').length;
  });
  page.on('dialog', (d) => void d.accept());
  try {
    await page.goto(`${BASE}/s/${key}`);
    await page.locator('input[name="loginId"]').fill(cfg.tester);
    await page.locator('input[name="password"]').fill('demo-pass');
    await page.locator('main button[type="submit"]').click();
    await page.locator('body#PRE00002').waitFor({ timeout: 30_000 });
    await page.locator('[data-testid="camera-state"][data-state="2"]').waitFor({ timeout: 20_000 });
    await page.locator('[data-testid="popup-state"][data-state="ok"]').waitFor({ timeout: 10_000 });
    await page.locator('#env-terms-agree').check();
    await page.getByTestId('env-next').click();
    await page.waitForURL(/\/examining$/, { timeout: 60_000 });
    if (cfg.screen) {
      await page.getByTestId('screen-share-button').click();
      await page
        .locator('[data-testid="screen-share-step"][data-status="shared"]')
        .waitFor({ timeout: 20_000 });
    }
    await page.locator('#exam-notes-agree').check();
    const popup = page.waitForEvent('popup');
    await page.getByTestId('exam-login').click();
    await popup;
    await page.locator('[data-testid="exam-phase"][data-phase="examing"]').waitFor({ timeout: 30_000 });
    // The checker's viewer connected and the encoders ramped up before counting.
    for (let i = 0; i < 60; i++) {
      const sent = await rtpSent(page);
      if (Object.keys(sent).length >= (cfg.screen ? 3 : 2)) break;
      await sleep(1000);
    }
    await sleep(10_000);
    const r0 = await rtpSent(page);
    counting = true;
    const t0 = Date.now();
    await sleep(MEASURE_S * 1000);
    counting = false;
    const r1 = await rtpSent(page);
    const secs = (Date.now() - t0) / 1000;
    const rate = (bytes) => (bytes * 8) / secs;
    const live = {};
    for (const k of Object.keys(r1)) live[k] = rate(r1[k] - (r0[k] ?? 0));
    const liveVideo = Object.entries(live).filter(([k]) => k.startsWith('video:'));
    // The camera is the first video m-line (mid 0); the screen the extra one.
    const camLive = liveVideo.find(([k]) => k === 'video:0')?.[1] ?? 0;
    const screenLive = liveVideo.filter(([k]) => k !== 'video:0').reduce((n, [, v]) => n + v, 0);
    const audioLive = Object.entries(live)
      .filter(([k]) => k.startsWith('audio:'))
      .reduce((n, [, v]) => n + v, 0);
    await page.getByTestId('exam-finish').click();
    await page.getByRole('dialog').getByRole('button', { name: 'OK' }).click();
    await page.waitForURL(/\/exam-end$/, { timeout: 30_000 }).catch(() => undefined);
    return {
      cfg,
      rec: { camera: rate(recorded.camera), screen: rate(recorded.screen) },
      live: { camera: camLive, audio: audioLive, screen: screenLive },
    };
  } finally {
    await context.close();
  }
}

async function main() {
  const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  console.log(
    `Upstream bench: ${MEASURE_S} s per configuration; ${os.cpus().length} cores, load average ${load} at the start`,
  );
  const dataDir = path.join(os.tmpdir(), `proctor-bench-up-${process.pid}`);
  let browser;
  let stopServer = () => undefined;
  cleanup = async () => {
    await browser?.close().catch(() => undefined);
    stopServer();
  };
  try {
    step('starting the server');
    stopServer = (await startServer({ port: PORT, dataDir })).stop;
    browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: [...CHROMIUM_ARGS] });
    const admin = await apiLogin(post, 'sysadmin01');
    // One checker on duty: every examinee lands on it, and its console views them (the live copies need a viewer).
    const checkerCtx = await browser.newContext({ permissions: ['camera', 'microphone'], locale: 'ja-JP' });
    const checker = await checkerCtx.newPage();
    await checker.goto(`${BASE}/s/demo-checker`);
    await checker.locator('input[name="loginId"]').fill('checker01');
    await checker.locator('input[name="password"]').fill('demo-pass');
    await checker.locator('main button[type="submit"]').click();
    await checker.waitForURL(/\/monitoring$/, { timeout: 30_000 });

    const results = [];
    for (const cfg of CONFIGS) {
      step(`measuring: ${cfg.name}`);
      try {
        results.push(await measure(browser, admin, cfg));
      } catch (e) {
        console.log(
          `  ${cfg.name}: not measured (${e instanceof Error ? e.message.split('\n')[0] : String(e)})`,
        );
      }
    }
    const endLoad = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
    console.log(`--- figures (Mbit/s over ${MEASURE_S} s; load average ${endLoad} at the end) ---`);
    console.log(
      'configuration                  rec camera  rec screen  live camera  live audio  live screen   total  | recording ceiling',
    );
    for (const { cfg, rec, live } of results) {
      const b = bitratesFor(cfg.level ? { videoLevel: cfg.level, audioLevel: null } : {});
      const ceiling = b.videoBitsPerSecond + b.audioBitsPerSecond + (cfg.screen ? b.videoBitsPerSecond : 0);
      const total = rec.camera + rec.screen + live.camera + live.audio + live.screen;
      console.log(
        `${cfg.name.padEnd(30)} ${mbit(rec.camera).padStart(10)}  ${mbit(rec.screen).padStart(10)}  ${mbit(live.camera).padStart(11)}  ${mbit(live.audio).padStart(10)}  ${mbit(live.screen).padStart(11)}  ${mbit(total).padStart(6)}  | ${mbit(ceiling)}`,
      );
    }
    console.log(
      'recording ceiling: the recorders’ target bit rates (camera video + audio, and the screen’s video at the same level); the live screen is capped at 1.2 Mbit/s, the live camera by the browser’s congestion control.',
    );
    console.log(
      'Chromium’s fake devices show simple synthetic pictures: real cameras and busy screens are nearer the ceilings.',
    );
  } catch (e) {
    console.log(`bench did not finish: ${e instanceof Error ? e.message : String(e)}`);
  } finally {
    await cleanup();
  }
}

await main();
clearTimeout(watchdog);
