import { defineConfig, devices } from '@playwright/test';
import os from 'node:os';
import path from 'node:path';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from './e2e/support/chromium';

const PORT = Number(process.env.E2E_PORT ?? 8181);
const dataDir = process.env.PROCTOR_E2E_DATA_DIR ?? path.join(os.tmpdir(), `proctor-e2e-${process.pid}`);
// Workers load this file again: they must see the same directory as the runner that started the server.
process.env.PROCTOR_E2E_DATA_DIR = dataDir;

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
  // The checker-monitoring, live-sitting, checker-console, wider-view and phone-camera specs switch checkers'
  // activation while their examinees start (so they land on their own checker): each runs alone, after every other
  // spec, so no other spec's examinee is caught in that window.
  projects: [
    {
      name: 'chromium',
      // e2e/scale/ is the scale layer's (playwright.scale.config.ts, scripts/scale.mjs).
      testIgnore: [
        /(checker-monitoring|live-sitting|checker-console|wider-view|phone-camera)\.spec\.ts/,
        /[\\/]scale[\\/]/,
      ],
      use: chromiumUse,
    },
    {
      name: 'chromium-checker-console',
      testMatch: /checker-monitoring\.spec\.ts/,
      dependencies: ['chromium'],
      use: chromiumUse,
    },
    {
      name: 'chromium-live-sitting',
      testMatch: /live-sitting\.spec\.ts/,
      dependencies: ['chromium-checker-console'],
      use: chromiumUse,
    },
    {
      name: 'chromium-console-shift',
      testMatch: /checker-console\.spec\.ts/,
      dependencies: ['chromium-live-sitting'],
      use: chromiumUse,
    },
    {
      name: 'chromium-wider-view',
      testMatch: /wider-view\.spec\.ts/,
      dependencies: ['chromium-console-shift'],
      use: chromiumUse,
    },
    {
      name: 'chromium-phone-camera',
      testMatch: /phone-camera\.spec\.ts/,
      dependencies: ['chromium-wider-view'],
      use: chromiumUse,
    },
  ],
  webServer: {
    command: `rm -rf ${dataDir} && node --import tsx server/src/server.ts`,
    url: `http://127.0.0.1:${PORT}/config.json`,
    reuseExistingServer: false,
    timeout: 120_000,
    stdout: 'ignore',
    stderr: 'pipe',
    env: {
      PORT: String(PORT),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      TEST_HOOKS: '1',
      RECORDING_PART_SIZE: '262144',
      LOG_LEVEL: 'warn',
      LOGIN_PER_IP_PER_MINUTE: '100000',
      LOGIN_MAX_FAILURES: '1000',
    },
  },
});
