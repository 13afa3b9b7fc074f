import { mkdirSync } from 'node:fs';
import path from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import websocket from '@fastify/websocket';
import { loadConfig } from '../config';
import { LocalCredentialIssuer } from '../lib/credentials';
import { withRedaction } from '../lib/log-redact';
import { loadOrCreateSecrets, newCredentialsKey, newKeyPair, parseKey32 } from '../lib/secrets';
import kvsStandin from './kvs/plugin';
import s3Standin from './s3/plugin';
import stsStandin from './sts/sts-standin';

/** What `npm run standins` reads from its environment (README "Running several instances"). */
export interface StandinsSettings {
  host: string;
  port: number;
  /** How browsers and app instances reach this process (STANDINS_PUBLIC_ORIGIN, default http://HOST:PORT). */
  publicOrigin: string;
  /** Where stored objects and the generated key pair live (STANDINS_DATA_DIR, default ./data-standins). */
  dataDir: string;
  /** The app instances' own key pair (their AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY). */
  server: { accessKeyId: string; secretAccessKey: string };
  /**
   * The key browser credentials are derived from and signed with (STANDINS_CREDENTIALS_KEY, default generated
   * once into `<dataDir>/secrets.json`): credentials issued before a restart stay valid after it, as on AWS.
   */
  credentialsKey: Buffer;
  /** Set when the key pair was read from or generated into this file. */
  secretsFile: string | null;
  /** The role browsers' credentials are assumed from (the app's AWS_ROLE_ARN). */
  roleArn: string;
  /** KVS region (KVS_REGION) and the region STS requests are signed for (STS_REGION, default KVS_REGION). */
  kvsRegion: string;
  stsRegion: string;
  /** /__kvs and /__s3 test hooks (TEST_HOOKS=1). */
  testHooks: boolean;
  logLevel: string;
}

export const DEFAULT_STANDINS_ROLE_ARN = 'arn:aws:iam::000000000000:role/proctor-browser';

/** Reads the stand-ins service's settings; the key pair comes from the environment or `<dataDir>/secrets.json`. */
export function loadStandinsSettings(env: NodeJS.ProcessEnv = process.env): StandinsSettings {
  const host = env.STANDINS_HOST || '127.0.0.1';
  const port = Number(env.STANDINS_PORT || 9100);
  if (!Number.isInteger(port) || port < 0 || port > 65_535)
    throw new Error(`Invalid STANDINS_PORT: ${env.STANDINS_PORT}`);
  const dataDir = path.resolve(env.STANDINS_DATA_DIR || './data-standins');
  let pair: ReturnType<typeof newKeyPair> | undefined;
  const { values, usedFile } = loadOrCreateSecrets(
    path.join(dataDir, 'secrets.json'),
    {
      STANDINS_ACCESS_KEY_ID: () => (pair ??= newKeyPair('AKIASTANDINS')).accessKeyId,
      STANDINS_SECRET_ACCESS_KEY: () => (pair ??= newKeyPair('AKIASTANDINS')).secretAccessKey,
      STANDINS_CREDENTIALS_KEY: newCredentialsKey,
    },
    env,
  );
  const kvsRegion = env.KVS_REGION || 'ap-northeast-1';
  return {
    host,
    port,
    publicOrigin: (env.STANDINS_PUBLIC_ORIGIN || `http://${host}:${port}`).replace(/\/$/, ''),
    dataDir,
    server: {
      accessKeyId: values.STANDINS_ACCESS_KEY_ID!,
      secretAccessKey: values.STANDINS_SECRET_ACCESS_KEY!,
    },
    credentialsKey: parseKey32('STANDINS_CREDENTIALS_KEY', values.STANDINS_CREDENTIALS_KEY!),
    secretsFile: usedFile ? path.join(dataDir, 'secrets.json') : null,
    roleArn: env.STANDINS_ROLE_ARN || DEFAULT_STANDINS_ROLE_ARN,
    kvsRegion,
    stsRegion: env.STS_REGION || kvsRegion,
    testHooks: env.TEST_HOOKS === '1',
    logLevel: env.LOG_LEVEL || 'info',
  };
}

/**
 * The cloud stand-ins as a service of their own (`npm run standins`): the KVS signaling stand-in (control
 * plane /kvs, data plane /kvs-data with the configured STUN/TURN servers, WebSockets /kvs-ws), the S3
 * stand-in (/s3) and an STS stand-in (/sts), sharing one credential registry. App instances reach it
 * exactly as they reach AWS — KVS_ENDPOINT, S3_ENDPOINT, STS_ENDPOINT and the server key pair as their AWS
 * credentials — and browsers reach /kvs, /kvs-ws and /s3 directly, as they reach AWS. One process holds
 * every signaling socket, so examinees and checkers on different app instances meet on the same channel.
 */
export async function buildStandinsApp(
  settings: StandinsSettings,
  env: NodeJS.ProcessEnv = process.env,
): Promise<FastifyInstance> {
  const app = Fastify({
    logger: withRedaction({ level: settings.logLevel }),
    bodyLimit: 1024 * 1024,
  });
  // The stand-in plugins read a few fields of the app server's configuration.
  const config = loadConfig({ ...env, KVS_ENDPOINT: '', S3_ENDPOINT: '' });
  config.publicOrigin = settings.publicOrigin;
  config.dataDir = settings.dataDir;
  config.testHooks = settings.testHooks;
  app.decorate('config', config);
  // Credentials and channels are kept in the data directory: a restart of this service loses neither.
  mkdirSync(settings.dataDir, { recursive: true, mode: 0o700 });
  const issuer = new LocalCredentialIssuer({
    key: settings.credentialsKey,
    revocationsFile: path.join(settings.dataDir, 'revoked-credentials'),
  });
  app.decorate('localCredentials', issuer);
  await app.register(websocket, { options: { maxPayload: 64 * 1024 } });
  await app.register(kvsStandin, {
    env: {
      ...env,
      KVS_ENDPOINT: '',
      KVS_REGION: settings.kvsRegion,
      KVS_LOCAL_ACCESS_KEY_ID: settings.server.accessKeyId,
      KVS_LOCAL_SECRET_ACCESS_KEY: settings.server.secretAccessKey,
      KVS_LOCAL_CHANNELS_FILE: path.join(settings.dataDir, 'kvs-channels.jsonl'),
    },
  });
  await app.register(s3Standin, { enabled: true, serverCredentials: settings.server });
  await app.register(stsStandin, {
    server: settings.server,
    roleArn: settings.roleArn,
    region: settings.stsRegion,
    issuer,
  });
  // Stored objects are never a document that could act for anyone's origin.
  app.addHook('onSend', async (request, reply, payload) => {
    reply.header('X-Content-Type-Options', 'nosniff');
    if (request.url.startsWith('/s3/'))
      reply.header('Content-Security-Policy', "default-src 'none'; sandbox");
    return payload;
  });
  app.get('/healthz', async () => ({ status: 'ok', live_credentials: issuer.live().length }));
  return app;
}
