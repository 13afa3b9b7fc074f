// Upstream bench (README "The wider view"): what an examinee sends per configuration — the camera alone, the
// camera with its entire screen shared (is_screen_record), with the phone as a second camera (is_phone_camera), and
// all three — at the default recording quality and at a lower video level (spec §9 levels apply to each recorded
// stream). A real server, a checker watching on /monitoring (the live copies flow only to a viewer), Chromium's
// fake camera, microphone and screen; the phone is a second browser context with a phone's viewport opened from the
// pairing link the examinee's page shows. For MEASURE_S seconds (default 60) it counts what the recorders wrote per
// stream (every chunk the computer's page stores, every chunk the phone's MediaRecorder hands out: what each must
// upload) and the RTP bytes each peer connection sent per track (outbound-rtp). It prints figures and never fails.
// Usage: node bench/upstream.mjs (after npm run build; npm run bench -- upstream); BENCH_CONFIGS=phone (a
// comma-separated list of words) measures only the configurations whose name contains one of them.
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
const DEADLINE_S = Number(process.env.DEADLINE_S ?? 8 * (MEASURE_S + 120) + 120);
const step = (what) => console.log(`[${((Date.now() - T_START) / 1000).toFixed(0)} s] ${what}`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const mbit = (bitsPerSecond) => `${(bitsPerSecond / 1e6).toFixed(2)}`;

/** The configurations measured: which streams, which video level (null: the spec's fixed 5 Mbit/s). */
const ALL_CONFIGS = [
  { name: 'camera', screen: false, phone: false, level: null, tester: 'tester05' },
  { name: 'camera + screen', screen: true, phone: false, level: null, tester: 'tester06' },
  { name: 'camera + phone', screen: false, phone: true, level: null, tester: 'tester09' },
  { name: 'camera + screen + phone', screen: true, phone: true, level: null, tester: 'tester10' },
  { name: 'camera, level 10', screen: false, phone: false, level: 10, tester: 'tester07' },
  { name: 'camera + screen, level 10', screen: true, phone: false, level: 10, tester: 'tester08' },
  { name: 'camera + phone, level 10', screen: false, phone: true, level: 10, tester: 'tester11' },
  { name: 'camera + screen + phone, level 10', screen: true, phone: true, level: 10, tester: 'tester12' },
];
const only = (process.env.BENCH_CONFIGS ?? '').split(',').filter(Boolean);
const CONFIGS = only.length ? ALL_CONFIGS.filter((c) => only.some((w) => c.name.includes(w))) : ALL_CONFIGS;

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

/** Keeps the page's peer connections in `__pcs` (for rtpSent) and, with `recorder`, counts MediaRecorder bytes. */
async function instrument(context, recorder) {
  await context.addInitScript((countRecorder) => {
    const Orig = globalThis.RTCPeerConnection;
    globalThis.__pcs = [];
    globalThis.RTCPeerConnection = class extends Orig {
      constructor(c) {
        super(c);
        globalThis.__pcs.push(this);
      }
    };
    if (!countRecorder) return;
    // The phone's recording: every blob its recorder hands out is what the phone stores and uploads.
    globalThis.__recordedBytes = 0;
    const OrigRecorder = globalThis.MediaRecorder;
    globalThis.MediaRecorder = class extends OrigRecorder {
      constructor(...args) {
        super(...args);
        this.addEventListener('dataavailable', (e) => {
          globalThis.__recordedBytes += e.data?.size ?? 0;
        });
      }
    };
  }, recorder);
}

/**
 * The examinee's phone, paired from the link under the QR code on /examining (as if the code had been scanned),
 * publishing its rear camera; returns once its page says connected.
 */
async function pairPhone(browser, examinee) {
  const url = (await examinee.getByTestId('phone-link').textContent({ timeout: 20_000 }))?.trim();
  if (!url) throw new Error('no pairing link on /examining');
  const context = await browser.newContext({
    viewport: { width: 390, height: 844 },
    deviceScaleFactor: 2,
    isMobile: true,
    hasTouch: true,
    permissions: ['camera'],
    locale: 'ja-JP',
  });
  await instrument(context, true);
  const phone = await context.newPage();
  phone.on('dialog', (d) => void d.accept());
  await phone.goto(url);
  await phone.locator('[data-testid="phone-page"][data-step="choose"]').waitFor({ timeout: 20_000 });
  await phone.getByTestId('phone-rear').tap();
  await phone
    .locator('[data-testid="phone-connection"][data-connection="connected"]')
    .waitFor({ timeout: 30_000 });
  return { context, phone };
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
    is_phone_camera: cfg.phone ? 1 : 0,
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
  await instrument(context, false);
  const page = await context.newPage();
  let phone = null;
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
    if (cfg.phone) {
      phone = await pairPhone(browser, page);
      await page.locator('[data-testid="phone-panel"][data-phone-state="live"]').waitFor({ timeout: 30_000 });
    }
    await page.locator('#exam-notes-agree').check();
    const popup = page.waitForEvent('popup');
    await page.getByTestId('exam-login').click();
    await popup;
    await page.locator('[data-testid="exam-phase"][data-phase="examing"]').waitFor({ timeout: 30_000 });
    // The checker's viewer connected and the encoders ramped up before counting.
    for (let i = 0; i < 60; i++) {
      const sent = await rtpSent(page);
      const phoneSent = phone ? Object.keys(await rtpSent(phone.phone)).length : 1;
      if (Object.keys(sent).length >= (cfg.screen ? 3 : 2) && phoneSent >= 1) break;
      await sleep(1000);
    }
    await sleep(10_000);
    const phoneBytes = () => phone?.phone.evaluate(() => globalThis.__recordedBytes ?? 0) ?? 0;
    const [r0, p0, pr0] = [await rtpSent(page), phone ? await rtpSent(phone.phone) : {}, await phoneBytes()];
    counting = true;
    const t0 = Date.now();
    await sleep(MEASURE_S * 1000);
    counting = false;
    const [r1, p1, pr1] = [await rtpSent(page), phone ? await rtpSent(phone.phone) : {}, await phoneBytes()];
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
    // The phone sends video only (the computer records the room's sound).
    const phoneLive = Object.keys(p1)
      .filter((k) => k.startsWith('video:'))
      .reduce((n, k) => n + rate(p1[k] - (p0[k] ?? 0)), 0);
    await page.getByTestId('exam-finish').click();
    await page.getByRole('dialog').getByRole('button', { name: 'OK' }).click();
    await page.waitForURL(/\/exam-end$/, { timeout: 30_000 }).catch(() => undefined);
    return {
      cfg,
      rec: { camera: rate(recorded.camera), screen: rate(recorded.screen), phone: rate(pr1 - pr0) },
      live: { camera: camLive, audio: audioLive, screen: screenLive, phone: phoneLive },
    };
  } finally {
    await phone?.context.close();
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
      'configuration                      rec camera  rec screen  live camera  live audio  live screen  computer | rec phone  live phone  phone |  total  | recording ceiling',
    );
    for (const { cfg, rec, live } of results) {
      const b = bitratesFor(cfg.level ? { videoLevel: cfg.level, audioLevel: null } : {});
      const ceiling =
        b.videoBitsPerSecond +
        b.audioBitsPerSecond +
        (cfg.screen ? b.videoBitsPerSecond : 0) +
        (cfg.phone ? b.videoBitsPerSecond : 0);
      const computer = rec.camera + rec.screen + live.camera + live.audio + live.screen;
      const phone = rec.phone + live.phone;
      console.log(
        `${cfg.name.padEnd(34)} ${mbit(rec.camera).padStart(10)}  ${mbit(rec.screen).padStart(10)}  ${mbit(live.camera).padStart(11)}  ${mbit(live.audio).padStart(10)}  ${mbit(live.screen).padStart(11)}  ${mbit(computer).padStart(8)} | ${mbit(rec.phone).padStart(9)}  ${mbit(live.phone).padStart(10)}  ${mbit(phone).padStart(5)} | ${mbit(computer + phone).padStart(6)}  | ${mbit(ceiling)}`,
      );
    }
    console.log(
      'recording ceiling: the recorders’ target bit rates (camera video + audio, and the screen’s and the phone’s video at the same level); the live screen is capped at 1.2 Mbit/s and the live phone at 1 Mbit/s, the live camera only by the browser’s congestion control. The phone uploads from its own network: on the same home link, add it to the computer’s.',
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
