// The scale layer of npm test (`npm test -- scale` alone): several instances on one PostgreSQL, proven.
// It starts a throw-away PostgreSQL cluster (Debian's, installed when missing), coturn (Debian's, installed
// when missing), the cloud stand-ins as their own process (`npm run standins`), two app instances A and B on
// that database pointed at the stand-ins as at AWS, and a small load balancer (scripts/lb-proxy.mjs) in front
// of them; then it runs
//   1. the multi-instance server tests on that PostgreSQL (server/test/multi-instance.test.ts,
//      standins-service.test.ts; reports/scale-server.json), and
//   2. the browser journey across the instances (e2e/scale/, playwright.scale.config.ts; reports/scale.json):
//      examinee on A, checker and manager on B, A killed with SIGKILL mid-exam, live video through coturn only.
// Everything runs inside a loopback-only network namespace when the machine allows it (like scripts/e2e.mjs),
// else on the host loopback with free ports; every process it started is stopped and the cluster removed.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { startProxy } from './lb-proxy.mjs';
import { ensurePostgres, startPostgres } from './lib-postgres.mjs';
import { buildIfNeeded, ensureChromium, ensureDebianPackages, root, runAsync } from './lib.mjs';

const T0 = Date.now();
const step = (what) => console.log(`[scale ${((Date.now() - T0) / 1000).toFixed(0)} s] ${what}`);

if (!process.env.SCALE_IN_NETNS) {
  // Prerequisites on the host (apt-get needs the network): PostgreSQL, coturn, Chromium, the built SPA.
  const pgBin = ensurePostgres();
  const missing = ensureDebianPackages({ turnserver: 'coturn' });
  const chromium = ensureChromium();
  if (!pgBin || missing.length || !chromium) {
    console.error('The scale layer needs PostgreSQL, coturn and Chromium (see above).');
    process.exit(1);
  }
  buildIfNeeded();
  const env = { ...process.env, CHROMIUM_PATH: chromium, SCALE_IN_NETNS: '1' };
  const self = new URL(import.meta.url).pathname;
  let r;
  if (!process.env.E2E_NO_NETNS && spawnSync('unshare', ['-n', 'true']).status === 0) {
    r = spawnSync(
      'unshare',
      ['-n', 'sh', '-c', `ip link set lo up && exec "${process.execPath}" "${self}"`],
      {
        stdio: 'inherit',
        cwd: root,
        env,
      },
    );
  } else {
    console.log('No network namespace available: the scale layer runs on the host loopback with free ports.');
    r = spawnSync(process.execPath, [self], {
      stdio: 'inherit',
      cwd: root,
      env: { ...env, SCALE_HOST_NET: '1' },
    });
  }
  process.exit(r.status ?? 1);
}

// ---------------------------------------------------------------- inside the namespace

const freePort = () =>
  new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
const port = async (fixed) => (process.env.SCALE_HOST_NET ? freePort() : fixed);

const work = mkdtempSync(path.join(os.tmpdir(), 'proctor-scale-'));
const children = [];
let pgCluster = null;
let proxy = null;

/** Starts a child with its output in work/<name>.log; remembers it for the clean-up. */
function start(name, cmd, args, env) {
  const out = openSync(path.join(work, `${name}.log`), 'a');
  const child = spawn(cmd, args, { cwd: root, env, stdio: ['ignore', out, out] });
  children.push({ name, child });
  return child;
}

async function waitHttp(url, what, timeoutMs = 90_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const res = await fetch(url);
      if (res.ok) return;
    } catch {
      // not up yet
    }
    if (Date.now() > deadline) throw new Error(`${what} did not answer ${url} within ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function cleanup() {
  await proxy?.close().catch(() => undefined);
  for (const { child } of children.reverse()) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
  }
  await Promise.all(
    children.map(
      ({ child }) =>
        new Promise((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          const t = setTimeout(() => {
            child.kill('SIGKILL');
            resolve();
          }, 8000);
          child.on('exit', () => {
            clearTimeout(t);
            resolve();
          });
        }),
    ),
  );
  await pgCluster?.stop().catch(() => undefined);
  if (!process.env.SCALE_KEEP) rmSync(work, { recursive: true, force: true });
  else console.log(`Kept ${work} (SCALE_KEEP)`);
}

let failed = false;
try {
  step('PostgreSQL');
  pgCluster = await startPostgres();
  const turnPort = await port(3478);
  const standinsPort = await port(9380);
  const aPort = await port(8381);
  const bPort = await port(8382);
  const proxyPort = await port(8380);
  const standins = `http://127.0.0.1:${standinsPort}`;
  const proxyUrl = `http://127.0.0.1:${proxyPort}`;
  const turnSecret = randomBytes(24).toString('base64url');
  const serverKey = {
    id: `AKIASCALE${randomBytes(6).toString('hex').toUpperCase()}`,
    secret: randomBytes(30).toString('base64'),
  };
  const roleArn = 'arn:aws:iam::000000000000:role/proctor-browser';
  const baseEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    TMPDIR: os.tmpdir(),
    ENV_FILE: '/dev/null',
  };

  step('coturn');
  const turnLog = path.join(work, 'turn.log');
  start(
    'coturn',
    'turnserver',
    [
      '-n',
      '--listening-ip=127.0.0.1',
      '--relay-ip=127.0.0.1',
      `--listening-port=${turnPort}`,
      '--min-port=49160',
      '--max-port=49400',
      '--use-auth-secret',
      `--static-auth-secret=${turnSecret}`,
      '--realm=proctor.test',
      '--allow-loopback-peers',
      '--no-cli',
      '--no-tls',
      '--no-dtls',
      '--fingerprint',
      '--verbose',
      `--log-file=${turnLog}`,
      '--simple-log',
      `--pidfile=${path.join(work, 'turn.pid')}`,
    ],
    baseEnv,
  );

  step('stand-ins service');
  start('standins', process.execPath, ['--import', 'tsx', 'server/src/standins/main.ts'], {
    ...baseEnv,
    STANDINS_PORT: String(standinsPort),
    STANDINS_DATA_DIR: path.join(work, 'standins'),
    STANDINS_ACCESS_KEY_ID: serverKey.id,
    STANDINS_SECRET_ACCESS_KEY: serverKey.secret,
    STANDINS_ROLE_ARN: roleArn,
    TURN_URLS: `turn:127.0.0.1:${turnPort}?transport=udp`,
    TURN_SECRET: turnSecret,
    S3_LOCAL_MIN_PART_SIZE: '262144',
    LOG_LEVEL: 'warn',
  });

  // The two instances start together: migrations and the demo seed run once under the advisory lock.
  step('instances A and B');
  const instanceEnv = (name, p) => ({
    ...baseEnv,
    HOST: '127.0.0.1',
    PORT: String(p),
    PUBLIC_ORIGIN: proxyUrl,
    DATA_DIR: path.join(work, name),
    DATABASE_URL: pgCluster.url,
    DATABASE_POOL_SIZE: '10',
    DEMO: '1',
    AI_WORKERS: '0',
    LOG_LEVEL: 'warn',
    LOGIN_PER_IP_PER_MINUTE: '100000',
    LOGIN_MAX_FAILURES: '1000',
    RECORDING_PART_SIZE: '262144',
    KVS_ENDPOINT: `${standins}/kvs`,
    KVS_PUBLIC_ENDPOINT: `${standins}/kvs`,
    S3_ENDPOINT: `${standins}/s3`,
    S3_PUBLIC_ENDPOINT: `${standins}/s3`,
    S3_FORCE_PATH_STYLE: '1',
    S3_MIN_PART_SIZE: '262144',
    STS_ENDPOINT: `${standins}/sts`,
    AWS_ROLE_ARN: roleArn,
    AWS_ACCESS_KEY_ID: serverKey.id,
    AWS_SECRET_ACCESS_KEY: serverKey.secret,
    AWS_EC2_METADATA_DISABLED: 'true',
    ICE_TRANSPORT_POLICY: 'relay',
  });
  for (const n of ['a', 'b']) mkdirSync(path.join(work, n), { recursive: true });
  const a = start(
    'instance-a',
    process.execPath,
    ['--import', 'tsx', 'server/src/server.ts'],
    instanceEnv('a', aPort),
  );
  start('instance-b', process.execPath, ['--import', 'tsx', 'server/src/server.ts'], instanceEnv('b', bPort));
  await waitHttp(`${standins}/healthz`, 'the stand-ins service');
  await Promise.all([
    waitHttp(`http://127.0.0.1:${aPort}/readyz`, 'instance A'),
    waitHttp(`http://127.0.0.1:${bPort}/readyz`, 'instance B'),
  ]);
  proxy = await startProxy({
    port: proxyPort,
    backends: { a: `http://127.0.0.1:${aPort}`, b: `http://127.0.0.1:${bPort}` },
  });
  step(`ready: balancer ${proxyUrl} → A :${aPort}, B :${bPort}; stand-ins ${standins}; coturn :${turnPort}`);

  mkdirSync(path.join(root, 'reports'), { recursive: true });
  step('multi-instance server tests on PostgreSQL');
  // Children run asynchronously: the balancer lives in this process's event loop.
  const vitest = await runAsync(
    path.join(root, 'node_modules/.bin/vitest'),
    [
      'run',
      '--project',
      'server',
      'server/test/multi-instance.test.ts',
      'server/test/standins-service.test.ts',
      '--reporter=dot',
      '--reporter=json',
      `--outputFile.json=${path.join(root, 'reports/scale-server.json')}`,
    ],
    { env: { ...process.env, TEST_DATABASE_URL: pgCluster.url } },
  );
  if (vitest !== 0) failed = true;

  step('browser journey across the instances');
  const pw = await runAsync(
    path.join(root, 'node_modules/.bin/playwright'),
    ['test', '-c', 'playwright.scale.config.ts', ...process.argv.slice(2)],
    {
      env: {
        ...process.env,
        SCALE_PROXY_URL: proxyUrl,
        SCALE_A_PID: String(a.pid),
        SCALE_A_URL: `http://127.0.0.1:${aPort}`,
        SCALE_B_URL: `http://127.0.0.1:${bPort}`,
        SCALE_STANDINS_URL: standins,
        SCALE_TURN_LOG: turnLog,
        SCALE_TURN_PORT: String(turnPort),
        SCALE_PG_URL: pgCluster.url,
      },
    },
  );
  if (pw !== 0) failed = true;
  step(`balancer answers: ${JSON.stringify(proxy.served)}`);
} catch (err) {
  console.error(err);
  failed = true;
  for (const { name } of children) {
    const log = path.join(work, `${name}.log`);
    console.error(`--- last lines of ${name}.log`);
    spawnSync('tail', ['-n', '30', log], { stdio: 'inherit' });
  }
} finally {
  await cleanup();
  step(failed ? 'failed' : 'done');
}
process.exit(failed ? 1 : 0);
