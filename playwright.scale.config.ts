import { defineConfig, devices } from '@playwright/test';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from './e2e/support/chromium';

/**
 * The scale layer (scripts/scale.mjs starts what it needs: PostgreSQL, coturn, the stand-ins service, two app
 * instances and a load balancer, then runs this): browsers reach the instances only through the balancer at
 * SCALE_PROXY_URL, live video only through coturn (ICE_TRANSPORT_POLICY=relay).
 */
export default defineConfig({
  testDir: './e2e/scale',
  timeout: 240_000,
  expect: { timeout: 15_000 },
  fullyParallel: false,
  workers: 1,
  retries: 0,
  reporter: [['list'], ['json', { outputFile: 'reports/scale.json' }]],
  outputDir: 'test-results/scale',
  use: {
    ...devices['Desktop Chrome'],
    baseURL: process.env.SCALE_PROXY_URL ?? 'http://127.0.0.1:8380',
    trace: 'retain-on-failure',
    locale: 'ja-JP',
    launchOptions: { executablePath: CHROMIUM_PATH, args: [...CHROMIUM_ARGS] },
  },
});
