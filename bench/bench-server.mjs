// What the browser-driving benches share (bench/recording.mjs, bench/upstream.mjs): a reference server of their
// own on a port of their own (with the test hooks, the AI off), and a JSON POST to it as the e2e helpers take it.
import { spawn } from 'node:child_process';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * Starts `node server/src/server.ts` on 127.0.0.1:`port` with its data in `dataDir` (plus `env`) and waits until
 * it answers /config.json (at most 120 s). `stop()` kills it.
 */
export async function startServer({ port, dataDir, env = {} }) {
  const base = `http://127.0.0.1:${port}`;
  const server = spawn('node', ['--import', 'tsx', 'server/src/server.ts'], {
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      TEST_HOOKS: '1',
      LOG_LEVEL: 'warn',
      AI_WORKERS: '0',
      ...env,
    },
    stdio: 'ignore',
  });
  for (let i = 0; i < 120; i++) {
    if (
      await fetch(`${base}/config.json`)
        .then((r) => r.ok)
        .catch(() => false)
    )
      break;
    await sleep(1000);
  }
  return { base, server, stop: () => server.kill() };
}

/** @returns {import('../e2e/support/recording.ts').Post} a JSON POST to `base`, with a bearer token when given. */
export function jsonPost(base) {
  return async (pathname, data, token) => {
    const r = await fetch(`${base}${pathname}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify(data ?? {}),
    });
    return { status: r.status, body: await r.json().catch(() => null) };
  };
}
