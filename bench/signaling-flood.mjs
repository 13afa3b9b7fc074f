// Signaling flood benchmark: what one examinee's signaling credentials can make the server hold. The examinee
// (tester01, demo data) takes its MASTER credentials from matching.php as the SPA does and then, for FLOOD_S
// seconds (default 30), sends ≈ 10 KB SDP_ANSWER frames as fast as the socket drains to made-up
// recipientClientIds, reconnecting every RECONNECT_S seconds (default 2) so each new connection starts with a
// full send budget. This is the attack that once grew the server by ≈ 200 MB per 20,000 frames until it died.
//
// Prints the server's RSS before (after a warm-up), its peak and its last sample during the flood, the growth
// (peak − before; goal ≤ 50 MB), the frames sent, and what the stand-in did with them (relayed / queued /
// dropped, bytes still queued). Figures, never a failure; exits non-zero only when the set-up broke.
// Its own server on a free port with a fresh PGlite data dir, AI_WORKERS=0.
// Usage: node bench/signaling-flood.mjs   (FLOOD_S, RECONNECT_S tune it)
import { spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DescribeSignalingChannelCommand, KinesisVideoClient } from '@aws-sdk/client-kinesis-video';
import { SigV4RequestSigner } from 'amazon-kinesis-video-streams-webrtc';
import { WebSocket } from 'ws';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const FLOOD_S = Number(process.env.FLOOD_S ?? 30);
const RECONNECT_S = Number(process.env.RECONNECT_S ?? 2);
const GOAL_MB = 50;
const DEADLINE_S = FLOOD_S + 240;
const T_START = Date.now();
const step = (what) => console.log(`[${((Date.now() - T_START) / 1000).toFixed(0)} s] ${what}`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const mb = (kb) => `${(kb / 1024).toFixed(1)} MB`;

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** Resident set size of a process in KB (VmRSS), or 0 once it is gone. */
function rssKb(pid) {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

const port = await freePort();
const BASE = `http://127.0.0.1:${port}`;
const dataDir = path.join(os.tmpdir(), `proctor-bench-flood-${process.pid}`);
const server = spawn(process.execPath, ['--import', 'tsx', 'server/src/server.ts'], {
  cwd: ROOT,
  env: {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    DEMO: '1',
    TEST_HOOKS: '1',
    LOG_LEVEL: 'warn',
    AI_WORKERS: '0',
  },
  stdio: 'ignore',
});
const cleanup = () => {
  server.kill();
  rmSync(dataDir, { recursive: true, force: true });
};
const watchdog = setTimeout(() => {
  console.log(`bench did not finish within ${DEADLINE_S} s: stopped (figures above are partial)`);
  cleanup();
  process.exit(1);
}, DEADLINE_S * 1000);

async function api(pathname, body, token) {
  const r = await fetch(`${BASE}/api/v1/${pathname}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body ?? {}),
  });
  const j = await r.json().catch(() => null);
  if (r.status !== 200) throw new Error(`${pathname}: HTTP ${r.status} ${JSON.stringify(j)}`);
  return j.result;
}

async function main() {
  step(`starting the server on ${BASE}`);
  let up = false;
  for (let i = 0; i < 120 && !up; i++) {
    up = await fetch(`${BASE}/config.json`)
      .then((r) => r.ok)
      .catch(() => false);
    if (!up) await sleep(1000);
  }
  if (!up) throw new Error('the server did not come up within 120 s');

  const login = await api('login.php', { login_id: 'tester01', password: 'demo-pass' });
  const poll = await api('matching.php', {}, login.access_token);
  const ch = poll.matchings[0]?.signaling_channel;
  if (!ch) throw new Error('matching.php gave the examinee no signaling channel');
  const creds = {
    accessKeyId: ch.access_key_id,
    secretAccessKey: ch.secret_access_key,
    sessionToken: ch.session_token,
  };
  const control = new KinesisVideoClient({ region: ch.region, endpoint: ch.endpoint, credentials: creds });
  const described = await control.send(new DescribeSignalingChannelCommand({ ChannelName: ch.channel_name }));
  const arn = described.ChannelInfo.ChannelARN;
  const wsBase = `${BASE.replace(/^http/, 'ws')}/kvs-ws/master`;
  const signer = new SigV4RequestSigner(ch.region, creds);

  /** A signed MASTER connection (signed for wss://, opened over ws://, as the SPA's signer does). */
  const openMaster = async () => {
    const url = await signer.getSignedURL(
      'wss://' + wsBase.slice(5),
      { 'X-Amz-ChannelARN': arn },
      new Date(),
    );
    const ws = new WebSocket('ws://' + url.slice(6));
    await new Promise((resolve, reject) => {
      ws.once('open', resolve);
      ws.once('error', reject);
    });
    return ws;
  };

  await sleep(3000); // let start-up work (migrations, demo seed, first requests) settle
  const before = rssKb(server.pid);
  step(`server RSS before the flood: ${mb(before)}`);

  const payload = Buffer.from('x'.repeat(7400)).toString('base64'); // ≈ 9.9 KB, under the 10K limit
  let sent = 0;
  let peak = before;
  const end = Date.now() + FLOOD_S * 1000;
  let ws = await openMaster();
  let reconnectAt = Date.now() + RECONNECT_S * 1000;
  let nextSample = Date.now() + 1000;
  while (Date.now() < end) {
    if (Date.now() >= reconnectAt) {
      ws.terminate();
      ws = await openMaster();
      reconnectAt = Date.now() + RECONNECT_S * 1000;
    }
    // Send as fast as the socket drains (keep at most 4 MB in flight).
    while (ws.readyState === ws.OPEN && ws.bufferedAmount < 4 * 1024 * 1024 && Date.now() < end) {
      ws.send(
        JSON.stringify({
          action: 'SDP_ANSWER',
          messagePayload: payload,
          recipientClientId: `made-up-${sent}`,
        }),
      );
      sent++;
      if (sent % 200 === 0) break;
    }
    if (Date.now() >= nextSample) {
      peak = Math.max(peak, rssKb(server.pid));
      nextSample += 1000;
    }
    await new Promise((r) => setImmediate(r));
    if (ws.readyState !== ws.OPEN) {
      ws = await openMaster();
      reconnectAt = Date.now() + RECONNECT_S * 1000;
    }
  }
  ws.terminate();
  await sleep(1000);
  const last = rssKb(server.pid);
  peak = Math.max(peak, last);

  const state = await fetch(`${BASE}/__kvs/state`).then((r) => r.json());
  const channel = state.channels.find((c) => c.channelName === ch.channel_name);
  const c = channel?.counters ?? {};
  const growth = peak - before;
  console.log('');
  console.log(
    `Signaling flood: ${FLOOD_S} s, ${sent} frames of ≈ 9.9 KB to made-up recipients (${mb((sent * 9.9) | 0)} sent)`,
  );
  console.log(`  server RSS before ${mb(before)}, peak ${mb(peak)}, at the end ${mb(last)}`);
  console.log(
    `  RSS growth (peak − before): ${mb(growth)}  (goal ≤ ${GOAL_MB} MB: ${growth <= GOAL_MB * 1024 ? 'goal met' : 'OVER GOAL'})`,
  );
  console.log(
    `  stand-in: relayed ${Object.values(c.relayed ?? {}).reduce((a, b) => a + b, 0)}, queued ${c.queued ?? 0}, dropped ${c.dropped ?? 0}, still queued for the channel ${Object.values(channel?.pending ?? {}).reduce((a, b) => a + b, 0)} messages`,
  );
}

try {
  await main();
  clearTimeout(watchdog);
  cleanup();
} catch (e) {
  console.log(`set-up broke: ${e instanceof Error ? e.message : String(e)}`);
  clearTimeout(watchdog);
  cleanup();
  process.exit(1);
}
