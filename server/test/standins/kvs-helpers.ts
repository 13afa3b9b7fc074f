import Fastify, { type FastifyInstance } from 'fastify';
import websocket from '@fastify/websocket';
import { KinesisVideoClient } from '@aws-sdk/client-kinesis-video';
import { KinesisVideoSignalingClient } from '@aws-sdk/client-kinesis-video-signaling';
import {
  Role,
  SigV4RequestSigner,
  SignalingClient,
  type RequestSigner,
} from 'amazon-kinesis-video-streams-webrtc';
import { WebSocket } from 'ws';
import type { AddressInfo } from 'node:net';
import { LocalCredentialIssuer, type TemporaryCredentials } from '../../src/lib/credentials';
import type { ServerConfig } from '../../src/config';
import kvsStandin from '../../src/standins/kvs/plugin';

/** The region the stand-in runs with in these tests (not the default, so region plumbing is exercised). */
export const REGION = 'us-east-1';

/** A bare Fastify app with only the KVS stand-in (no database), listening on 127.0.0.1. */
export interface KvsTestServer {
  app: FastifyInstance;
  issuer: LocalCredentialIssuer;
  /** http://127.0.0.1:PORT */
  base: string;
  close(): Promise<void>;
}

/** Starts the stand-in the way app.ts mounts it: @fastify/websocket first, then the plugin. */
export async function startKvsServer(
  env: NodeJS.ProcessEnv = { KVS_REGION: REGION },
): Promise<KvsTestServer> {
  const app = Fastify({ logger: false });
  const issuer = new LocalCredentialIssuer();
  app.decorate('config', { testHooks: true } as ServerConfig);
  app.decorate('localCredentials', issuer);
  await app.register(websocket, { options: { maxPayload: 64 * 1024 } });
  await app.register(kvsStandin, { env });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as AddressInfo;
  return { app, issuer, base: `http://127.0.0.1:${port}`, close: () => app.close() };
}

/**
 * Test copy of src/media/kvs-signer.ts (server/ may not import src/, STYLE.md §2): the SDK's own signer over
 * the wss:// form, scheme turned back to ws://. Its unit test pins that both produce the same URL.
 */
export function testRequestSigner(creds: TemporaryCredentials, region = REGION): RequestSigner {
  return {
    async getSignedURL(endpoint, queryParams, date) {
      const signer = new SigV4RequestSigner(region, creds);
      const insecure = endpoint.startsWith('ws://');
      const url = await signer.getSignedURL(
        insecure ? 'wss://' + endpoint.slice(5) : endpoint,
        queryParams,
        date,
      );
      return insecure ? 'ws://' + url.slice(6) : url;
    },
  };
}

/** Credentials a client signs with: a browser's temporary ones, or the server key pair (no session token). */
export type SigningCredentials = Pick<TemporaryCredentials, 'accessKeyId' | 'secretAccessKey'> & {
  sessionToken?: string;
};

/** The control-plane client as the SPA builds it (or the server, with its key pair), pointed at the stand-in. */
export function controlClient(base: string, creds: SigningCredentials): KinesisVideoClient {
  return new KinesisVideoClient({
    region: REGION,
    endpoint: `${base}/kvs`,
    credentials: creds,
    maxAttempts: 1,
  });
}

/** The HTTPS data-plane client for an endpoint returned by GetSignalingChannelEndpoint. */
export function dataClient(endpoint: string, creds: TemporaryCredentials): KinesisVideoSignalingClient {
  return new KinesisVideoSignalingClient({ region: REGION, endpoint, credentials: creds, maxAttempts: 1 });
}

/** Everything a SignalingClient emitted, in order. */
export interface Recorded {
  client: SignalingClient;
  events: { name: string; args: unknown[] }[];
  closed: boolean;
}

/** Creates a SignalingClient (MASTER when clientId is undefined) that records its events; call `open()` yourself or use openClient. */
export function signalingClient(
  base: string,
  channelArn: string,
  creds: TemporaryCredentials,
  clientId?: string,
): Recorded {
  const role = clientId === undefined ? Role.MASTER : Role.VIEWER;
  const client = new SignalingClient({
    role,
    channelARN: channelArn,
    channelEndpoint: `${base.replace(/^http/, 'ws')}/kvs-ws/${role === Role.MASTER ? 'master' : 'viewer'}`,
    region: REGION,
    clientId,
    requestSigner: testRequestSigner(creds),
  });
  const rec: Recorded = { client, events: [], closed: false };
  for (const name of ['open', 'sdpOffer', 'sdpAnswer', 'iceCandidate', 'statusResponse', 'close', 'error']) {
    client.on(name, (...args: unknown[]) => {
      rec.events.push({ name, args });
      if (name === 'close') rec.closed = true;
    });
  }
  return rec;
}

/** Opens a recorded client and waits for `open`; rejects on `error` or `close` first. */
export async function openClient(rec: Recorded): Promise<Recorded> {
  await new Promise<void>((resolve, reject) => {
    const onOpen = () => (cleanup(), resolve());
    // The SDK forwards the WebSocket's ErrorEvent, whose message names the refused handshake's status.
    const onFail = (e?: unknown) => {
      cleanup();
      const message = (e as { message?: unknown } | undefined)?.message;
      reject(new Error(typeof message === 'string' ? message : 'signaling connection closed before open'));
    };
    const cleanup = () => {
      rec.client.off('open', onOpen);
      rec.client.off('error', onFail);
      rec.client.off('close', onFail);
    };
    rec.client.on('open', onOpen);
    rec.client.on('error', onFail);
    rec.client.on('close', onFail);
    rec.client.open();
  });
  return rec;
}

/** Events of one name, as argument lists. */
export function eventsOf(rec: Recorded, name: string): unknown[][] {
  return rec.events.filter((e) => e.name === name).map((e) => e.args);
}

/** Polls until `check` returns a truthy value (every 10 ms, up to `timeoutMs`). */
export async function waitFor<T>(
  check: () => T | Promise<T>,
  timeoutMs = 3000,
  what = 'condition',
): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v) return v as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** The signed ws:// URL a client would open, for raw `ws` checks of the handshake and frames. */
export async function signedUrl(
  base: string,
  role: 'master' | 'viewer',
  channelArn: string,
  creds: TemporaryCredentials,
  clientId?: string,
  region = REGION,
): Promise<string> {
  const qp: Record<string, string> = { 'X-Amz-ChannelARN': channelArn };
  if (clientId !== undefined) qp['X-Amz-ClientId'] = clientId;
  return testRequestSigner(creds, region).getSignedURL(
    `${base.replace(/^http/, 'ws')}/kvs-ws/${role}`,
    qp,
    new Date(),
  );
}

/** Result of a raw WebSocket handshake: the refusal's status and error type, or the open socket. */
export type Handshake =
  | { ok: true; socket: WebSocket; frames: { text: string; binary: boolean }[]; closed: Promise<number> }
  | { ok: false; status: number; errorType: string | undefined; body: string };

/** Opens a raw `ws` connection and reports whether the handshake was refused (with what) or accepted. */
export function rawConnect(url: string): Promise<Handshake> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url);
    const frames: { text: string; binary: boolean }[] = [];
    socket.on('message', (data, binary) => frames.push({ text: String(data), binary }));
    const closed = new Promise<number>((r) => socket.on('close', (code) => r(code)));
    socket.on('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => {
        const t = res.headers['x-amzn-errortype'];
        resolve({ ok: false, status: res.statusCode ?? 0, errorType: Array.isArray(t) ? t[0] : t, body });
        socket.terminate();
      });
    });
    socket.on('open', () => resolve({ ok: true, socket, frames, closed }));
    socket.on('error', (e) => reject(e));
  });
}

/** Base64 of JSON, as the SDK encodes message payloads (§1.4). */
export function b64(obj: unknown): string {
  return Buffer.from(JSON.stringify(obj)).toString('base64');
}
