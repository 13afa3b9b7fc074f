import { SigV4RequestSigner } from 'amazon-kinesis-video-streams-webrtc';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { createKvsRequestSigner, type KvsSigningCredentials } from './kvs-signer';

const REGION = 'ap-northeast-1';
const DATE = new Date('2026-11-21T22:26:41Z');
const ARN = 'arn:aws:kinesisvideo:ap-northeast-1:000000000000:channel/exam-123/1700000000000';
const CREDS: KvsSigningCredentials = {
  accessKeyId: 'ASIALOCAL1',
  secretAccessKey: 'c2VjcmV0',
  sessionToken: 'dG9rZW4+/=',
};

function params(url: string): URLSearchParams {
  return new URL(url.replace(/^ws/, 'http')).searchParams;
}

describe('createKvsRequestSigner', () => {
  beforeAll(() => {
    // jsdom's ArrayBuffer is not the one Node's WebCrypto accepts (a test-realm artefact; browsers have one realm).
    const nodeBuffer = (globalThis as unknown as { Buffer: { alloc(n: number): Uint8Array } }).Buffer;
    vi.stubGlobal('ArrayBuffer', nodeBuffer.alloc(1).buffer.constructor);
    return () => vi.unstubAllGlobals();
  });

  it('signs a ws:// endpoint as its wss:// form and keeps the ws:// scheme', async () => {
    const signer = createKvsRequestSigner(REGION, () => Promise.resolve(CREDS));
    const qp = { 'X-Amz-ChannelARN': ARN, 'X-Amz-ClientId': 'proctor-1' };

    const url = await signer.getSignedURL('ws://127.0.0.1:8080/kvs-ws/viewer', qp, DATE);
    const reference = await new SigV4RequestSigner(REGION, CREDS).getSignedURL(
      'wss://127.0.0.1:8080/kvs-ws/viewer',
      qp,
      DATE,
    );

    expect(url.startsWith('ws://127.0.0.1:8080/kvs-ws/viewer?')).toBe(true);
    expect(url).toBe('ws://' + reference.slice('wss://'.length));
    const q = params(url);
    expect(q.get('X-Amz-Signature')).toMatch(/^[0-9a-f]{64}$/);
    expect(q.get('X-Amz-Credential')).toBe(`ASIALOCAL1/20261121/${REGION}/kinesisvideo/aws4_request`);
    expect(q.get('X-Amz-Security-Token')).toBe(CREDS.sessionToken);
    expect(q.get('X-Amz-ClientId')).toBe('proctor-1');
    expect(q.get('X-Amz-ChannelARN')).toBe(ARN);
  });

  it('signs a wss:// endpoint exactly as the SDK signer does', async () => {
    const signer = createKvsRequestSigner(REGION, () => Promise.resolve(CREDS));
    const qp = { 'X-Amz-ChannelARN': ARN };
    const url = await signer.getSignedURL('wss://m-1234.kinesisvideo.ap-northeast-1.amazonaws.com', qp, DATE);
    expect(url).toBe(
      await new SigV4RequestSigner(REGION, CREDS).getSignedURL(
        'wss://m-1234.kinesisvideo.ap-northeast-1.amazonaws.com',
        qp,
        DATE,
      ),
    );
  });

  it('asks the provider for credentials before every signing', async () => {
    let n = 0;
    const provider = vi.fn(() => {
      n += 1;
      return Promise.resolve({ ...CREDS, accessKeyId: `ASIALOCAL${n}` });
    });
    const signer = createKvsRequestSigner(REGION, provider);
    const first = await signer.getSignedURL('ws://h/kvs-ws/master', { 'X-Amz-ChannelARN': ARN }, DATE);
    const second = await signer.getSignedURL('ws://h/kvs-ws/master', { 'X-Amz-ChannelARN': ARN }, DATE);
    expect(provider).toHaveBeenCalledTimes(2);
    expect(params(first).get('X-Amz-Credential')).toMatch(/^ASIALOCAL1\//);
    expect(params(second).get('X-Amz-Credential')).toMatch(/^ASIALOCAL2\//);
    expect(params(first).get('X-Amz-Signature')).not.toBe(params(second).get('X-Amz-Signature'));
  });

  it('passes provider failures and other schemes to the caller', async () => {
    const failing = createKvsRequestSigner(REGION, () => Promise.reject(new Error('no session')));
    await expect(failing.getSignedURL('ws://h/x', {}, DATE)).rejects.toThrow('no session');
    const signer = createKvsRequestSigner(REGION, () => Promise.resolve(CREDS));
    await expect(signer.getSignedURL('http://h/x', {}, DATE)).rejects.toThrow(/wss:\/\//);
  });
});
