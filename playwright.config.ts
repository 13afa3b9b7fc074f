import { defineConfig, devices } from '@playwright/test';
import os from 'node:os';
import path from 'node:path';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from './e2e/support/chromium';

const PORT = Number(process.env.E2E_PORT ?? 8181);
const LIVE_PORT = PORT + 1;
const dataDir = process.env.PROCTOR_E2E_DATA_DIR ?? path.join(os.tmpdir(), `proctor-e2e-${process.pid}`);
const liveDataDir = `${dataDir}-live`;
// Workers load this file again: they must see the same directory as the runner that started the server.
process.env.PROCTOR_E2E_DATA_DIR = dataDir;
// server-restart.spec.ts starts a server of its own (E2E_PORT + 2), so it needs none of the live server's
// isolation: it runs with the other specs, off the live chain that is the end-to-end layer's longest path.
const LIVE_SPECS = /(checker-monitoring|live-sitting|checker-console|wider-view|phone-camera)\.spec\.ts/;

/** The server under test, started fresh (new database, demo data) on `port`. */
function server(port: number, dir: string) {
  return {
    command: `rm -rf ${dir} && node --import tsx server/src/server.ts`,
    url: `http://127.0.0.1:${port}/config.json`,
    reuseExistingServer: false,
    timeout: 120_000,
    stdout: 'ignore' as const,
    stderr: 'pipe' as const,
    env: {
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dir,
      TEST_HOOKS: '1',
      RECORDING_PART_SIZE: '262144',
      LOG_LEVEL: 'warn',
      LOGIN_PER_IP_PER_MINUTE: '100000',
      LOGIN_MAX_FAILURES: '1000',
    },
  };
}

/** Debian Chromium with fake camera and microphone, ICE allowed on loopback (research/media-stack.md §5). */
const chromiumUse = {
  ...devices['Desktop Chrome'],
  launchOptions: {
    executablePath: CHROMIUM_PATH,
    args: [...CHROMIUM_ARGS],
  },
};

export default defineConfig({
  testDir: './e2e',
  timeout: 60_000,
  expect: { timeout: 10_000 },
  globalTeardown: './e2e/support/global-teardown.ts',
  fullyParallel: false,
  workers: 2,
  retries: 0,
  reporter: [['list'], ['json', { outputFile: 'reports/e2e.json' }]],
  outputDir: 'test-results',
  use: {
    baseURL: `http://127.0.0.1:${PORT}`,
    trace: 'retain-on-failure',
    locale: 'ja-JP',
  },
  // The live specs (checker-monitoring, live-sitting, checker-console, wider-view, phone-camera) switch checkers'
  // activation while their examinees start, so that each lands on its own checker: no other spec's examinee may
  // start on that server meanwhile. They run one after another (one worker) against a server of their own, while
  // the other specs run beside them against the first server. Listed first, so that the scheduler starts the
  // chain at once instead of after the other specs (it hands out files in project order).
  projects: [
    {
      name: 'chromium-live',
      testMatch: LIVE_SPECS,
      workers: 1,
      use: { ...chromiumUse, baseURL: `http://127.0.0.1:${LIVE_PORT}` },
    },
    {
      name: 'chromium',
      // e2e/scale/ is the scale layer's (playwright.scale.config.ts, scripts/scale.mjs).
      testIgnore: [LIVE_SPECS, /[\\/]scale[\\/]/],
      use: chromiumUse,
    },
  ],
  webServer: [server(PORT, dataDir), server(LIVE_PORT, liveDataDir)],
});
