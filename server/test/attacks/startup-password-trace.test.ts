import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app';
import type { App } from '../../src/lib/app-types';
import { redactText, redactValue } from '../../src/lib/log-redact';
import { build, DEMO_PASSWORD, envelope, loginAs, testConfig, type TestServer } from '../helper';

/**
 * Someone who reads the server's logs (or a proxy's, through the Referer) must not find a JT start-up
 * password, a bearer token, a presigned recording URL or a signed KVS URL there.
 */
let s: TestServer;
let app: App;
const lines: string[] = [];

beforeAll(async () => {
  s = await build();
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(chunk.toString('utf8'));
      done();
    },
  });
  app = await buildApp({
    config: testConfig({ logLevel: 'info' }),
    db: s.db,
    logger: { level: 'info', stream },
  });
  await app.ready();
});

afterAll(async () => {
  await app.close();
  await s.close();
});

describe('a start-up password, tokens and signed URLs in the server log', () => {
  it('are redacted from the request log lines', async () => {
    const secret = 'S3cretPassw0rd';
    const res = await app.inject({ method: 'GET', url: `/?actor=1&login_id=tester09&password=${secret}` });
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    await app.inject({
      method: 'GET',
      url: '/s3/recordings/recordings/1/1-1.webm?X-Amz-Credential=AKIA%2F1&X-Amz-Signature=abcdef0123&X-Amz-Security-Token=tok123456',
    });
    await app.inject({
      method: 'GET',
      url: '/kvs-ws/viewer?X-Amz-ChannelARN=arn&X-Amz-Security-Token=kvstoken999&X-Amz-Signature=feed42',
    });
    await app.inject({ method: 'GET', url: '/api/v1/tester/image.php?key=k&sig=imagesig777' });
    const log = lines.join('');
    expect(log).toContain('login_id=tester09'); // the request is logged…
    expect(log).toContain('password=[redacted]'); // …without its password
    for (const leaked of [secret, 'abcdef0123', 'tok123456', 'kvstoken999', 'feed42', 'imagesig777'])
      expect(log, leaked).not.toContain(leaked);
  });

  it('are redacted from whatever a route logs, messages and objects alike', () => {
    expect(redactText('GET https://b.s3/x?X-Amz-Signature=1a2b&response-content-type=video%2Fwebm')).toBe(
      'GET https://b.s3/x?X-Amz-Signature=[redacted]&response-content-type=video%2Fwebm',
    );
    expect(redactText('authorization: Bearer abc.DEF-123')).toBe('authorization: Bearer [redacted]');
    expect(redactText('{"login_id":"t1","password":"p\\"w"}')).toBe(
      '{"login_id":"t1","password":"[redacted]"}',
    );
    expect(
      redactValue({ creds: { accessKeyId: 'ASIA1', secretAccessKey: 'sk', sessionToken: 'st' }, n: 1 }),
    ).toEqual({
      creds: { accessKeyId: 'ASIA1', secretAccessKey: '[redacted]', sessionToken: '[redacted]' },
      n: 1,
    });
  });

  it('does not reach the log through a login either', async () => {
    const before = lines.length;
    const token = await loginAs(app, 'tester10', DEMO_PASSWORD);
    const me = await app.inject({
      method: 'GET',
      url: `/api/v1/tester/detail.php?access_token=${token}`,
      headers: { authorization: `Bearer ${token}` },
    });
    expect(envelope(me).status).toBe(200);
    const log = lines.slice(before).join('');
    expect(log).not.toContain(DEMO_PASSWORD);
    expect(log).not.toContain(token);
  });
});
