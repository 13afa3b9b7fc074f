// Debian Chromium as every browser-driving run here launches it (research/media-stack.md §5): the e2e config
// (playwright.config.ts) and the benchmarks (bench/monitoring.mjs, bench/recording.mjs, through tsx).

/** The Debian Chromium binary (CHROMIUM_PATH overrides). */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Headless on 127.0.0.1 with a fake camera and microphone, permission prompts accepted, ICE on loopback. */
export const CHROMIUM_ARGS: readonly string[] = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--use-fake-ui-for-media-stream',
  '--use-fake-device-for-media-stream',
  '--allow-loopback-in-peer-connection',
];
