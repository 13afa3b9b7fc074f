import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import { S3Client, type S3ClientConfig } from '@aws-sdk/client-s3';
import { LocalCredentialIssuer, type TemporaryCredentials } from '../../src/lib/credentials';
import type { ServerConfig } from '../../src/config';
import s3Standin, { type S3StandinOptions } from '../../src/standins/s3/plugin';

/** The region the browser client uses in production (media-stack.md §4.3). */
export const REGION = 'ap-northeast-1';
/** S3's minimum part size. */
export const MIB5 = 5 * 1024 * 1024;

/** A bare Fastify app with only the S3 stand-in, listening on 127.0.0.1. */
export interface S3TestServer {
  app: FastifyInstance;
  issuer: LocalCredentialIssuer;
  /** http://127.0.0.1:PORT */
  base: string;
  dataDir: string;
  /** Temporary credentials scoped to one object key, as the app server issues them to the browser. */
  issue(bucket: string, key: string, ttlSeconds?: number): Promise<TemporaryCredentials>;
  /** The SDK client exactly as the browser builds it (media-stack.md §0.4), with optional overrides. */
  client(
    creds: TemporaryCredentials | { accessKeyId: string; secretAccessKey: string },
    extra?: Partial<S3ClientConfig>,
  ): S3Client;
  /** The same client signed with the server's own key pair (full access, as the app server's role). */
  serverClient(extra?: Partial<S3ClientConfig>): S3Client;
  /** JSON call to a /__s3 test hook. */
  hook(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<unknown>;
  close(): Promise<void>;
}

/** Starts the stand-in the way app.ts mounts it (config + localCredentials decorated first). */
export async function startS3Server(opts: S3StandinOptions = {}): Promise<S3TestServer> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 's3-standin-test-'));
  const app = Fastify({ logger: false });
  const issuer = new LocalCredentialIssuer();
  const config = { dataDir, testHooks: true, publicOrigin: 'http://127.0.0.1:0' } as ServerConfig;
  app.decorate('config', config);
  app.decorate('localCredentials', issuer);
  await app.register(s3Standin, opts);
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as AddressInfo;
  const base = `http://127.0.0.1:${port}`;
  config.publicOrigin = base;
  const client: S3TestServer['client'] = (credentials, extra = {}) =>
    new S3Client({
      region: REGION,
      endpoint: `${base}/s3`,
      forcePathStyle: true,
      maxAttempts: 1,
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      credentials,
      ...extra,
    });
  return {
    app,
    issuer,
    base,
    dataDir,
    issue: (bucket, key, ttl = 900) => issuer.issue({ kind: 's3', bucket, key }, ttl),
    client,
    serverClient: (extra = {}) => client({ ...app.s3local!.serverCredentials }, extra),
    async hook(method, p, body) {
      const res = await fetch(`${base}/__s3/${p}`, {
        method,
        headers: body === undefined ? {} : { 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      if (!res.ok) throw new Error(`hook ${p}: ${res.status} ${await res.text()}`);
      return res.json();
    },
    async close() {
      await app.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** Deterministic bytes: a different pattern per `seed`. */
export function bytes(size: number, seed: number): Uint8Array {
  const out = new Uint8Array(size);
  let x = (seed * 2654435761) >>> 0 || 1;
  for (let i = 0; i < size; i++) {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    out[i] = x & 0xff;
  }
  return out;
}

/** Hex SHA-256. */
export function sha256(data: Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/** Hex MD5. */
export function md5(data: Uint8Array): string {
  return createHash('md5').update(data).digest('hex');
}

/** The SDK's error name and HTTP status, for `expect(...).rejects` style checks. */
export async function failure(
  p: Promise<unknown>,
): Promise<{ name: string; status: number | undefined; message: string }> {
  try {
    await p;
  } catch (err) {
    const e = err as { name: string; message: string; $metadata?: { httpStatusCode?: number } };
    return { name: e.name, status: e.$metadata?.httpStatusCode, message: e.message };
  }
  throw new Error('expected the call to fail');
}
