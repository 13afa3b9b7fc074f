import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  chromium,
  expect,
  test,
  type APIRequestContext,
  type BrowserContext,
  type Page,
} from '@playwright/test';
import { LoginPage } from './pages/login-page';
import { TesterEnvSettingPage, TesterExaminingPage, TesterIdentificationPage } from './pages/tester-pages';
import {
  acceptIdentityCheck,
  apiLogin,
  isRecordingStart,
  prepareRecordingSitting,
  procStat,
  processes,
  type Post,
} from './support/recording';

// Recordings are evidence, so nothing recorded may be lost: a recording through dropped parts, stalled parts,
// an offline stretch and a reload ends as objects whose bytes are exactly the chunks the page stored, start
// with the WebM header, play with a finite duration after the server's duration fix, and leave IndexedDB
// empty.
const TESTER = 'tester04';
const URL_KEY = 'e2e-recording';
const PART_SIZE = 262_144; // playwright.config.ts RECORDING_PART_SIZE

interface TapChunk {
  recordingKey: string;
  segment: number;
  seq: number;
  data: string;
}

/** The POST of the shared helpers (./support/recording.ts), through Playwright's request context. */
function poster(request: APIRequestContext): Post {
  return async (url, data, token) => {
    const r = await request.post(url, {
      data,
      ...(token ? { headers: { Authorization: `Bearer ${token}` } } : {}),
    });
    return { status: r.status(), body: await r.json().catch(() => null) };
  };
}

/**
 * From where the examinee stands (env-setting, identification or examining) on to /examining: the device
 * checks and the terms on env-setting; the monitor's identity check, if the sitting asks for one, accepted by a
 * checker through the API.
 */
async function reachExamining(page: Page, post: Post, tester: string) {
  // /env-setting sends a sitting already under way straight back to where it was: wait until the page has
  // either gone on or shows its device checks.
  if (page.url().endsWith('/env-setting')) {
    await expect
      .poll(
        async () =>
          !page.url().endsWith('/env-setting') || (await page.getByTestId('camera-state').count()) > 0,
        { timeout: 30_000 },
      )
      .toBe(true);
  }
  if (page.url().endsWith('/env-setting')) {
    const env = new TesterEnvSettingPage(page);
    await env.expectReady();
    await env.agreeAndNext();
    await expect(page).toHaveURL(/\/(examining|identification)$/, { timeout: 30_000 });
  }
  if (page.url().endsWith('/identification')) {
    await new TesterIdentificationPage(page).requestCheck();
    await acceptIdentityCheck(post, tester);
  }
  await expect(page).toHaveURL(/\/examining$/, { timeout: 30_000 });
}

const md5 = (b: Buffer) => createHash('md5').update(b).digest('hex');
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

test('recording survives dropped and stalled parts, an offline stretch and a reload, byte for byte', async ({
  page,
  context,
  request,
}) => {
  test.setTimeout(420_000);
  const post = poster(request);
  // Small parts for a fast test: the stand-in's minimum and the server's part size (env) both lowered.
  const admin = await prepareRecordingSitting(post, URL_KEY, 'Recording E2E');
  const auth = { Authorization: `Bearer ${admin}` };

  // What the page stored, reported through the chunk-store tap (registered before navigation).
  const chunks: TapChunk[] = [];
  await page.exposeFunction('__recordingChunkTap', (c: TapChunk) => {
    chunks.push(c);
  });
  // Every UploadPart S3 accepted: its ETag (MD5 of what the store received) and the body sent.
  const confirmed = new Map<string, { etag: string; body: Buffer }>();
  page.on('requestfinished', (req) => {
    const u = new URL(req.url());
    if (req.method() !== 'PUT' || !u.searchParams.has('partNumber')) return;
    void req.response().then((res) => {
      if (res?.status() !== 200) return;
      const key = `${u.searchParams.get('uploadId')}#${u.searchParams.get('partNumber')}`;
      confirmed.set(key, { etag: (res.headers().etag ?? '').replace(/"/g, ''), body: req.postDataBuffer()! });
    });
  });
  // Every UploadPart body the page sent, answered or not: a part whose answer was cut off by the reload is
  // not sent again when the server already holds it (recovery re-sends only what is missing).
  const sent = new Map<string, Buffer[]>();
  page.on('request', (req) => {
    const u = new URL(req.url());
    if (req.method() !== 'PUT' || !u.searchParams.has('partNumber')) return;
    const key = `${u.searchParams.get('uploadId')}#${u.searchParams.get('partNumber')}`;
    sent.set(key, [...(sent.get(key) ?? []), req.postDataBuffer() ?? Buffer.alloc(0)]);
  });
  page.on('dialog', (d) => void d.accept());
  await context.grantPermissions(['camera', 'microphone']);

  await page.goto(`/s/${URL_KEY}`);
  await new LoginPage(page).login(TESTER);
  await expect(page).toHaveURL(/\/env-setting$/, { timeout: 30_000 });
  await reachExamining(page, post, TESTER);
  const exam = new TesterExaminingPage(page);
  await exam.agreeNotes();
  const started = page.waitForResponse(isRecordingStart);
  await exam.openExamSystem();
  const first = ((await (await started).json()) as { result: { part_size: number; record_id: number } })
    .result;
  expect(first.part_size).toBe(PART_SIZE);

  const partsSent = () => confirmed.size;
  await expect.poll(partsSent, { timeout: 30_000 }).toBeGreaterThanOrEqual(2);

  // Dropped sockets and a stalled part: retried every second.
  await request.post('/__s3/faults', { data: { kind: 'destroy', count: 2 } });
  await request.post('/__s3/faults', { data: { kind: 'stall', ms: 4000, count: 1 } });
  let n = partsSent();
  await expect.poll(partsSent, { timeout: 40_000 }).toBeGreaterThanOrEqual(n + 3);

  // Offline for two minutes: chunks pile up in IndexedDB, then drain.
  await context.setOffline(true);
  await page.waitForTimeout(120_000);
  await context.setOffline(false);
  n = partsSent();
  await expect.poll(partsSent, { timeout: 60_000 }).toBeGreaterThanOrEqual(n + 3);

  // A reload mid-exam: the stored recording is finished from what the server lacks, a new segment starts.
  const second = page.waitForResponse(isRecordingStart, { timeout: 60_000 });
  await page.reload();
  const seg2 = ((await (await second).json()) as { result: { record_id: number; segment: number } }).result;
  expect(seg2.record_id).not.toBe(first.record_id);
  expect(seg2.segment).toBeGreaterThan(1);
  n = partsSent();
  await expect.poll(partsSent, { timeout: 40_000 }).toBeGreaterThanOrEqual(n + 2);

  await exam.finish();
  await expect(page).toHaveURL(/\/exam-end$/, { timeout: 30_000 });

  // Both records complete and get their duration fixed.
  const recordIds = [first.record_id, seg2.record_id];
  const played: { id: number; url: string }[] = [];
  for (const id of recordIds) {
    await expect
      .poll(
        async () => {
          const r = await request.get(`/api/v1/get_onetime_uri.php?record_id=${id}`, { headers: auth });
          const b = (await r.json()) as {
            result?: { url: string; movie_status: string; duration_ms: number | null };
          };
          if (b.result?.movie_status === '02' && b.result.duration_ms) played.push({ id, url: b.result.url });
          return b.result?.movie_status ?? 'pending';
        },
        { timeout: 60_000, intervals: [1000] },
      )
      .toBe('02');
  }

  // Per recording, the chunks the page stored, in order.
  const byKey = new Map<string, TapChunk[]>();
  for (const c of chunks) byKey.set(c.recordingKey, [...(byKey.get(c.recordingKey) ?? []), c]);
  expect(byKey.size).toBe(2);
  const recordedOf = new Map<string, Buffer>();
  for (const [key, list] of byKey) {
    list.sort((a, b) => a.segment - b.segment || a.seq - b.seq);
    const recorded = Buffer.concat(list.map((c) => Buffer.from(c.data, 'base64')));
    expect(recorded.subarray(0, 4).toString('hex')).toBe('1a45dfa3');
    recordedOf.set(new URL(`http://x/${key}`).searchParams.get('uploadId')!, recorded);
    // Every attempt the page was seen to send carried exactly the recorded bytes of its part. (A PUT in flight
    // when the page reloaded may not be seen at all: the unloading document's requests are not reported.)
    const uploadId = new URL(`http://x/${key}`).searchParams.get('uploadId')!;
    for (const [partKey, bodies] of sent) {
      const [id, n] = partKey.split('#');
      if (id !== uploadId) continue;
      const slice = recorded.subarray((Number(n) - 1) * PART_SIZE, Number(n) * PART_SIZE);
      for (const b of bodies) expect(md5(b), `part ${n} of ${key} as sent`).toBe(md5(slice));
      const ok = confirmed.get(partKey);
      if (ok) expect(ok.etag, `part ${n} of ${key} as confirmed`).toBe(md5(slice));
    }
  }

  // The fixed objects start with the EBML header and play with a finite duration.
  for (const { url } of played) {
    const head = await request.get(url, { headers: { Range: 'bytes=0-3' } });
    expect(Buffer.from(await head.body()).toString('hex')).toBe('1a45dfa3');
    const duration = await page.evaluate(async (src) => {
      const v = document.createElement('video');
      v.muted = true;
      v.preload = 'metadata';
      v.src = src;
      await new Promise((resolve, reject) => {
        v.onloadedmetadata = resolve;
        v.onerror = () => reject(new Error('video error'));
      });
      return v.duration;
    }, url);
    expect(Number.isFinite(duration) && duration > 0).toBe(true);
  }

  // Nothing left on the device (the last clean-up may finish just after the exam-end page shows).
  const left = () =>
    page.evaluate(async () => {
      const db = await new Promise<IDBDatabase>((resolve, reject) => {
        const o = indexedDB.open('proctor-recording');
        o.onsuccess = () => resolve(o.result);
        o.onerror = () => reject(o.error);
      });
      const count = (name: string) =>
        new Promise<number>((resolve) => {
          if (!db.objectStoreNames.contains(name)) return resolve(0);
          const r = db.transaction(name).objectStore(name).count();
          r.onsuccess = () => resolve(r.result);
        });
      const out: Record<string, number> = {};
      for (const name of Array.from(db.objectStoreNames)) if (name !== 'keys') out[name] = await count(name);
      db.close();
      return Object.entries(out)
        .filter(([, n]) => n > 0)
        .map(([name, n]) => `${name}:${n}`)
        .join(',');
    });
  await expect.poll(left, { timeout: 30_000 }).toBe('');

  // What the store holds, independent of what the page was seen to send: the parts each upload was completed
  // from (the server's record of S3's ListParts) are the recorded bytes, part by part (S3's ETag is the MD5 of
  // the bytes it stored), with nothing missing, nothing extra and nothing out of order.
  const testerToken = await apiLogin(post, TESTER);
  for (const [i, id] of recordIds.entries()) {
    const r = await request.post('/api/v1/recovery.php', {
      data: { record_id: id },
      headers: { Authorization: `Bearer ${testerToken}` },
    });
    const result = (
      (await r.json()) as {
        result: {
          completed: boolean;
          upload_id: string;
          parts: { PartNumber: number; ETag: string; Size: number }[];
        };
      }
    ).result;
    expect(result.completed).toBe(true);
    const recorded = recordedOf.get(result.upload_id);
    expect(recorded, `the page's chunks of record ${id} (segment ${i + 1})`).toBeDefined();
    const parts = [...result.parts].sort((a, b) => a.PartNumber - b.PartNumber);
    expect(parts.map((p) => p.PartNumber)).toEqual(parts.map((_, k) => k + 1));
    expect(parts.length).toBe(Math.ceil(recorded!.length / PART_SIZE));
    let offset = 0;
    for (const p of parts) {
      const slice = recorded!.subarray(offset, offset + p.Size);
      expect(p.Size, `part ${p.PartNumber} of record ${id}`).toBe(
        Math.min(PART_SIZE, recorded!.length - offset),
      );
      expect(p.ETag.replace(/"/g, ''), `part ${p.PartNumber} of record ${id}`).toBe(md5(slice));
      offset += p.Size;
    }
    expect(offset).toBe(recorded!.length);
  }
});

// ---------------------------------------------------------------- browser crash

const CRASH_TESTER = 'tester12';
const CRASH_URL_KEY = 'e2e-recording-crash';

/** The Chromium processes started on `userDataDir`: the browser's root pid and its process group. */
function browserProcessOf(userDataDir: string): { pid: number; pgid: number } | null {
  const procs = processes().filter((p) => {
    try {
      return readFileSync(`/proc/${p.pid}/cmdline`, 'utf8').includes(`--user-data-dir=${userDataDir}`);
    } catch {
      return false; // gone
    }
  });
  const pids = new Set(procs.map((p) => p.pid));
  return procs.find((p) => !pids.has(p.ppid)) ?? null;
}

/** Rejects when a promise has not settled in time (Playwright calls without a timeout option of their own). */
function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer in ${ms} ms`)), ms);
    p.then(
      (v) => {
        clearTimeout(timer);
        resolve(v);
      },
      (e: unknown) => {
        clearTimeout(timer);
        reject(e instanceof Error ? e : new Error(String(e)));
      },
    );
  });
}

/**
 * Logs in and gets into the exam: a new sitting agrees to the notes and opens the exam system; a sitting whose
 * exam is running (`resume`) must go back into it by itself. (Reading the phase to tell the two apart would
 * race the page, which shows the notes until it has loaded the sitting.) `opened`: the page is already at the
 * start-up URL (the relaunch navigated there itself).
 */
async function enterExam(
  page: Page,
  request: APIRequestContext,
  urlKey: string,
  tester: string,
  { opened = false, resume = false }: { opened?: boolean; resume?: boolean } = {},
) {
  if (!opened) await page.goto(`/s/${urlKey}`, { timeout: 30_000 });
  await new LoginPage(page).login(tester);
  await expect(page).toHaveURL(/\/(env-setting|identification|examining)$/, { timeout: 30_000 });
  await reachExamining(page, poster(request), tester);
  const exam = new TesterExaminingPage(page);
  if (resume) {
    await expect(page.getByTestId('exam-phase')).toHaveAttribute('data-phase', 'examing', {
      timeout: 30_000,
    });
  } else {
    await exam.agreeNotes();
    await exam.openExamSystem();
  }
  return exam;
}

test('recording survives the browser process killed and relaunched with the same profile', async ({
  request,
}, testInfo) => {
  test.setTimeout(300_000);
  const { baseURL, launchOptions, locale } = testInfo.project.use;
  const userDataDir = mkdtempSync(path.join(os.tmpdir(), 'pw-recording-crash-'));
  const post = poster(request);
  const admin = await prepareRecordingSitting(post, CRASH_URL_KEY, 'Recording crash E2E');
  const auth = { Authorization: `Bearer ${admin}` };

  const chunks: TapChunk[] = [];
  // UploadPart bodies S3 accepted, per uploadId#part, over both browser runs.
  const confirmed = new Map<string, Buffer>();
  const starts: { record_id: number; segment: number; uploadId: string }[] = [];
  const launch = async (): Promise<{ context: BrowserContext; page: Page }> => {
    const context = await chromium.launchPersistentContext(userDataDir, {
      ...(launchOptions ?? {}),
      ...(baseURL ? { baseURL } : {}),
      locale: locale ?? 'ja-JP',
      permissions: ['camera', 'microphone'],
    });
    await context.exposeFunction('__recordingChunkTap', (c: TapChunk) => {
      chunks.push(c);
    });
    context.on('requestfinished', (req) => {
      const u = new URL(req.url());
      if (req.method() === 'PUT' && u.searchParams.has('partNumber')) {
        void req.response().then((res) => {
          if (res?.status() !== 200) return;
          confirmed.set(
            `${u.searchParams.get('uploadId')}#${u.searchParams.get('partNumber')}`,
            req.postDataBuffer()!,
          );
        });
      } else if (u.pathname.endsWith('/tester/recording.php') && req.postDataJSON()?.method === 'PUT') {
        void req.response().then(async (res) => {
          const r = (
            (await res?.json()) as { result?: { record_id: number; segment: number; uploadId: string } }
          )?.result;
          if (r) starts.push({ record_id: r.record_id, segment: r.segment, uploadId: r.uploadId });
        });
      }
    });
    const page = context.pages()[0] ?? (await context.newPage());
    page.on('dialog', (d) => void d.accept());
    return { context, page };
  };

  try {
    // First run: into the exam, record until at least three chunks are durable and two parts confirmed.
    const first = await launch();
    await enterExam(first.page, request, CRASH_URL_KEY, CRASH_TESTER);
    await expect.poll(() => starts.length, { timeout: 30_000 }).toBeGreaterThanOrEqual(1);
    const rec1 = starts[0]!;
    const firstKey = () => chunks.find((c) => c.recordingKey.includes(rec1.uploadId))?.recordingKey;
    await expect
      .poll(() => chunks.filter((c) => c.recordingKey === firstKey()).length, {
        timeout: 90_000,
        intervals: [1000],
      })
      .toBeGreaterThanOrEqual(3);
    await expect
      .poll(() => [...confirmed.keys()].filter((k) => k.startsWith(`${rec1.uploadId}#`)).length, {
        timeout: 60_000,
      })
      .toBeGreaterThanOrEqual(2);

    // kill -9 the browser's process group mid-exam (no unload, no pagehide: a crash).
    const proc = browserProcessOf(userDataDir);
    expect(proc, 'the browser process').not.toBeNull();
    const reported = chunks.filter((c) => c.recordingKey === firstKey());
    const ownGroup = procStat('self')!.pgid;
    if (proc!.pgid !== ownGroup) process.kill(-proc!.pgid, 'SIGKILL');
    else process.kill(proc!.pid, 'SIGKILL');
    await expect.poll(() => browserProcessOf(userDataDir), { timeout: 15_000 }).toBeNull();
    await withTimeout(first.context.close(), 15_000).catch(() => undefined);

    // Relaunch on the same profile: log in again (the token lived in sessionStorage), back to the exam; the
    // stored recording is finished from what S3 lacks and a new segment starts.
    // The first navigation of a Chromium relaunched on a profile it was SIGKILLed in sometimes never gets its
    // document response (seen intermittently, with the page's service worker registered in that profile; in a
    // loaded CI run a new tab hung as well). An examinee would open a new tab, then restart the browser: the
    // test does the same, at most three launches, each navigation with its own timeout, and says so.
    let second: { context: BrowserContext; page: Page } | null = null;
    for (let attempt = 1; attempt <= 3 && !second; attempt += 1) {
      const run = await launch();
      for (const tab of ['first', 'new'] as const) {
        const page =
          tab === 'first' ? run.page : await withTimeout(run.context.newPage(), 15_000).catch(() => null);
        if (!page) break;
        if (tab === 'new') page.on('dialog', (d) => void d.accept());
        const ok = await page
          .goto(`/s/${CRASH_URL_KEY}`, { timeout: 30_000 })
          .then(() => true)
          .catch(() => false);
        if (ok) {
          second = { context: run.context, page };
          break;
        }
        testInfo.annotations.push({
          type: 'relaunch',
          description: `launch ${attempt}: the navigation in the ${tab} tab hung`,
        });
        if (tab === 'first') await page.close().catch(() => undefined);
      }
      if (!second) {
        const proc = browserProcessOf(userDataDir);
        if (proc) process.kill(proc.pid, 'SIGKILL');
        await withTimeout(run.context.close(), 15_000).catch(() => undefined);
      }
    }
    if (!second) throw new Error('the relaunched browser never loaded the page (three launches)');
    const exam = await enterExam(second.page, request, CRASH_URL_KEY, CRASH_TESTER, {
      opened: true,
      resume: true,
    });
    await expect
      .poll(() => starts.filter((s) => s.record_id !== rec1.record_id).length, { timeout: 60_000 })
      .toBeGreaterThanOrEqual(1);
    const rec2 = starts.find((s) => s.record_id !== rec1.record_id)!;
    expect(rec2.segment).toBeGreaterThan(rec1.segment);

    // The first recording is completed (it leaves '00') from the stored chunks.
    await expect
      .poll(
        async () => {
          const r = await request.get(`/api/v1/get_onetime_uri.php?record_id=${rec1.record_id}`, {
            headers: auth,
          });
          return ((await r.json()) as { result?: { movie_status: string } }).result?.movie_status ?? 'open';
        },
        { timeout: 90_000, intervals: [1000] },
      )
      .toMatch(/^0[12]$/);

    await second.page.waitForTimeout(5_000);
    await exam.finish();
    await expect(second.page).toHaveURL(/\/exam-end$/, { timeout: 60_000 });

    // The first object: its parts as the server assembled them (recovery after completion)…
    const testerToken = await apiLogin(post, CRASH_TESTER);
    const recovery = (await (
      await request.post('/api/v1/recovery.php', {
        data: { record_id: rec1.record_id },
        headers: { Authorization: `Bearer ${testerToken}` },
      })
    ).json()) as {
      result: { completed: boolean; parts: { PartNumber: number; ETag: string; Size: number }[] };
    };
    expect(recovery.result.completed).toBe(true);
    const parts = [...recovery.result.parts].sort((a, b) => a.PartNumber - b.PartNumber);
    // …hold every chunk the page reported before the kill, in order, plus at most the in-flight timeslice.
    reported.sort((a, b) => a.segment - b.segment || a.seq - b.seq);
    const recorded = Buffer.concat(reported.map((c) => Buffer.from(c.data, 'base64')));
    const largest = Math.max(...reported.map((c) => Buffer.from(c.data, 'base64').length));
    const total = parts.reduce((n, p) => n + p.Size, 0);
    expect(total).toBeGreaterThanOrEqual(recorded.length);
    expect(total - recorded.length, 'more than one timeslice beyond the reported chunks').toBeLessThanOrEqual(
      2 * largest,
    );
    const body: Buffer[] = [];
    let offset = 0;
    for (const p of parts) {
      const sent = confirmed.get(`${rec1.uploadId}#${p.PartNumber}`);
      const expected = recorded.subarray(offset, offset + p.Size);
      if (sent) {
        expect(md5(sent), `part ${p.PartNumber} body vs ETag`).toBe(p.ETag.replace(/"/g, ''));
        body.push(sent);
      } else {
        // Confirmed by S3 as the browser died (its response never reached the page): its ETag is the MD5 of
        // the reported bytes it covers.
        expect(expected.length, `part ${p.PartNumber} lies in the reported bytes`).toBe(p.Size);
        expect(md5(expected), `part ${p.PartNumber}`).toBe(p.ETag.replace(/"/g, ''));
        body.push(expected);
      }
      offset += p.Size;
    }
    const object = Buffer.concat(body);
    expect(object.subarray(0, 4).toString('hex')).toBe('1a45dfa3');
    expect(sha256(object.subarray(0, recorded.length))).toBe(sha256(recorded));

    // Nothing left on the device.
    await expect
      .poll(
        () =>
          second.page.evaluate(async () => {
            const db = await new Promise<IDBDatabase>((resolve, reject) => {
              const o = indexedDB.open('proctor-recording');
              o.onsuccess = () => resolve(o.result);
              o.onerror = () => reject(o.error);
            });
            let n = 0;
            for (const name of Array.from(db.objectStoreNames)) {
              if (name === 'keys') continue;
              n += await new Promise<number>((resolve) => {
                const r = db.transaction(name).objectStore(name).count();
                r.onsuccess = () => resolve(r.result);
              });
            }
            db.close();
            return n;
          }),
        { timeout: 30_000 },
      )
      .toBe(0);
    await second.context.close();
  } finally {
    const left = browserProcessOf(userDataDir);
    if (left) process.kill(left.pid, 'SIGKILL');
    // Helper processes of the browser (crashpad, a renderer on its way out) may still write into the profile
    // for a moment: retry, and leave a temporary directory behind rather than fail a passed test over it.
    try {
      rmSync(userDataDir, { recursive: true, force: true, maxRetries: 20, retryDelay: 250 });
    } catch (e) {
      console.warn(`could not remove ${userDataDir}: ${String(e)}`);
    }
  }
});
