import { randomBytes } from 'node:crypto';
import path from 'node:path';
import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import type { ServerCredentials } from './auth';
import { FaultQueue } from './faults';
import { s3Routes } from './routes';
import { createS3LocalService } from './service';
import { S3Store, type StoreSettings } from './store';
import { s3TestHooks } from './test-hooks';

/** S3's minimum size for every part but the last (media-stack.md §6). */
export const S3_MIN_PART_SIZE = 5 * 1024 * 1024;

/** Options; each falls back to an environment variable, then to S3's behaviour. */
export interface S3StandinOptions {
  /** `S3_LOCAL_MIN_PART_SIZE`, default 5,242,880. */
  minPartSize?: number;
  /** `S3_LOCAL_STRICT_CHECKSUM` ('0' turns it off), default on (media-stack.md §4.3). */
  strictChecksum?: boolean;
  /** `S3_REGION` / `AWS_REGION`, default ap-northeast-1: what `clientConfig()` and `presignGet` sign with. */
  region?: string;
  /** Public base URL, default `${config.publicOrigin}/s3` (read at call time). */
  endpoint?: string;
  /** `S3_LOCAL_ACCESS_KEY_ID` + `S3_LOCAL_SECRET_ACCESS_KEY`, default a random pair per process. */
  serverCredentials?: ServerCredentials;
  /**
   * `S3_LOCAL_VERIFY_SIGNATURE` ('0' turns it off), default on. Off only skips the signature comparison (for a
   * dev proxy that rewrites Host); key id, session token, expiry and key scope are still checked.
   */
  verifySignature?: boolean;
  /** On whatever S3_ENDPOINT says (the stand-ins service, whose own .env may name itself for the app). */
  enabled?: boolean;
}

function envFlag(name: string, fallback: boolean): boolean {
  const v = process.env[name];
  return v === undefined || v === '' ? fallback : v !== '0';
}

function envInt(name: string): number | undefined {
  const v = process.env[name];
  if (v === undefined || v === '') return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new Error(`Invalid ${name}: ${v}`);
  return n;
}

/**
 * The local S3 stand-in: path-style multipart upload, object GET/HEAD/PUT/DELETE with Range and
 * presigned URLs under /s3, for the real `@aws-sdk/client-s3` in the browser and on the server
 * (media-stack.md §4, §7.2). Decorates `app.s3local`. Off (`app.s3local === null`) when `S3_ENDPOINT` is set,
 * i.e. the server uses AWS. Test hooks under /__s3 only with `config.testHooks`.
 */
async function s3Standin(app: FastifyInstance, opts: S3StandinOptions): Promise<void> {
  const issuer = app.hasDecorator('localCredentials') ? app.localCredentials : null;
  if ((opts.enabled === undefined ? process.env.S3_ENDPOINT : !opts.enabled) || !issuer) {
    app.decorate('s3local', null);
    return;
  }
  const defaults: StoreSettings = {
    minPartSize: opts.minPartSize ?? envInt('S3_LOCAL_MIN_PART_SIZE') ?? S3_MIN_PART_SIZE,
    strictChecksum: opts.strictChecksum ?? envFlag('S3_LOCAL_STRICT_CHECKSUM', true),
  };
  const verifySignature = opts.verifySignature ?? envFlag('S3_LOCAL_VERIFY_SIGNATURE', true);
  const envKeyId = process.env.S3_LOCAL_ACCESS_KEY_ID;
  const envSecret = process.env.S3_LOCAL_SECRET_ACCESS_KEY;
  const serverCredentials: ServerCredentials =
    opts.serverCredentials ??
    (envKeyId && envSecret
      ? { accessKeyId: envKeyId, secretAccessKey: envSecret }
      : {
          accessKeyId: 'AKIALOCALSERVER' + randomBytes(6).toString('hex').toUpperCase(),
          secretAccessKey: randomBytes(30).toString('base64'),
        });
  const region = opts.region ?? process.env.S3_REGION ?? process.env.AWS_REGION ?? 'ap-northeast-1';
  const endpoint = () => (opts.endpoint ?? `${app.config.publicOrigin}/s3`).replace(/\/$/, '');

  const store = new S3Store(path.join(app.config.dataDir, 's3'), { ...defaults });
  await store.loadUsage();
  const faults = new FaultQueue();
  app.decorate('s3local', createS3LocalService({ store, serverCredentials, region, endpoint }));

  await app.register(s3Routes, {
    store,
    faults,
    issuer,
    server: serverCredentials,
    endpoint,
    verifySignature,
  });
  if (app.config.testHooks) await app.register(s3TestHooks, { store, faults, defaults });
}

export default fp(s3Standin, { name: 's3-standin', fastify: '5.x' });
