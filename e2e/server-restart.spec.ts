import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from '@playwright/test';
import { MonitoringConsolePage } from './pages/monitoring-console';
import { RealExaminee } from './pages/monitoring-examinee';
import { TesterExaminingPage } from './pages/tester-pages';

// The server restarted under a running exam, as `npm start` runs it: one process with the embedded database
// and the built-in KVS and S3 stand-ins, killed (SIGTERM, then SIGKILL) and started again on the same
// DATA_DIR. The examinee's and the checker's pages are left alone: live video must reach the checker again by
// itself. The server is this spec's own (a child process on its own port and data directory), so killing it
// touches no other spec; its demo data gives one checker (checker01) and one examinee (tester01).

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const PORT = Number(process.env.E2E_PORT ?? 8181) + 2;
const ORIGIN = `http://127.0.0.1:${PORT}`;

test.use({ baseURL: ORIGIN });

/** The single-process server on `dataDir` (demo data on its first start), resolved once it answers. */
async function startServer(dataDir: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/src/server.ts'], {
    cwd: root,
    env: {
      ...process.env,
      PORT: String(PORT),
      HOST: '127.0.0.1',
      PUBLIC_ORIGIN: ORIGIN,
      DATA_DIR: dataDir,
      DATABASE_URL: '',
      KVS_ENDPOINT: '',
      S3_ENDPOINT: '',
      AI_WORKERS: '0',
      LOG_LEVEL: 'warn',
      LOGIN_PER_IP_PER_MINUTE: '100000',
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code) => reject(new Error(`server exited (${code}): ${stderr}`))),
  );
  exited.catch(() => undefined);
  const up = (async () => {
    for (;;) {
      const ok = await fetch(`${ORIGIN}/config.json`).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) return;
      await new Promise((r) => setTimeout(r, 250));
    }
  })();
  await Promise.race([up, exited]);
  return child;
}

/** Stops the server with `signal` and waits until the process is gone. */
async function stopServer(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise<void>((r) => child.once('exit', () => r()));
  child.kill(signal);
  await gone;
}

test.describe('a server restart during an exam', () => {
  test.skip(!!process.env.E2E_NO_NETNS, 'WebRTC needs the loopback-only network namespace');

  test('live video comes back to the checker by itself after SIGTERM and after SIGKILL, with no reload', async ({
    browser,
  }) => {
    test.setTimeout(420_000);
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'proctor-restart-'));
    let server: ChildProcess | null = await startServer(dataDir);
    const checkerContext = await browser.newContext();
    const checkerPage = await checkerContext.newPage();
    await MonitoringConsolePage.hookPeerConnections(checkerPage);
    const console_ = new MonitoringConsolePage(checkerPage);
    const examinee = new RealExaminee('tester01');
    try {
      await console_.login('checker01');
      await examinee.openToEnvSetting(browser);
      await examinee.startTransmission();
      await expect(console_.paneOf(examinee.loginId)).toBeVisible({ timeout: 30_000 });
      const testerId = await console_.testerIdOf(examinee.loginId);
      await examinee.requestCheck();
      await expect(console_.pane(testerId)).toHaveAttribute('data-auth', 'authenticating', {
        timeout: 15_000,
      });
      await console_.decide(testerId, '承認');
      await expect(examinee.page).toHaveURL(/\/examining$/, { timeout: 20_000 });
      await new TesterExaminingPage(examinee.page).agreeNotes();

      const pane = console_.pane(testerId);
      const liveStatus = examinee.page.getByTestId('live-status');
      /**
       * The examinee sends to the checker (its publisher is live and has the checker's viewer), and the pane is
       * live with its own <video> showing new frames: not a picture left from before the restart.
       */
      const expectLiveVideo = async (timeout: number) => {
        await expect(liveStatus).toHaveAttribute('data-status', 'live', { timeout });
        await expect(liveStatus).toContainText('視聴中の監視者: 1', { timeout });
        await expect(pane.getByTestId('pane-connection')).toHaveAttribute('data-connection', 'live', {
          timeout,
        });
        const frames = () =>
          pane
            .getByTestId('pane-video')
            .evaluate((v) => (v as HTMLVideoElement).getVideoPlaybackQuality().totalVideoFrames)
            .catch(() => 0);
        const f0 = await frames();
        await expect.poll(frames, { timeout: 20_000 }).toBeGreaterThan(f0 + 10);
      };
      await expectLiveVideo(30_000);

      for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
        await test.step(`${signal}, then the server starts again on the same data directory`, async () => {
          await stopServer(server!, signal);
          server = null;
          // Down long enough for both pages to notice (the examinee's signaling socket closes at once, its
          // polls and the checker's fail) and give up their first attempts.
          await examinee.page.waitForTimeout(8_000);
          server = await startServer(dataDir);
          // Neither page is reloaded: the pane comes back live with the examinee's moving picture.
          await expectLiveVideo(60_000);
          // And stays live (no flapping between connecting and live).
          await examinee.page.waitForTimeout(10_000);
          await expectLiveVideo(1_000);
        });
      }
    } finally {
      await examinee.close();
      await checkerContext.close().catch(() => undefined);
      if (server) await stopServer(server, 'SIGTERM');
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
