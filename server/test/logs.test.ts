import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Actor } from '../../contract/common';
import { build, DEMO_LOGIN, envelope, injectAs, loginAs, type TestServer } from './helper';

const ACTORS: Actor[] = [1, 2, 3, 4, 5];

interface LogRow {
  source: string;
  level: string;
  type: string;
  path: string;
  module: string;
  location: string;
  details: string;
  tag1: string;
  client_ts: string | null;
  user_id: number | null;
  login_id: string | null;
  actor: number | null;
  ip: string | null;
}

describe('log_receive.php', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await build();
  });
  afterAll(async () => {
    await s.close();
  });

  async function lastLog(source: string): Promise<LogRow> {
    const { rows } = await s.db.query<LogRow>(
      `SELECT * FROM logs WHERE source = $1 ORDER BY id DESC LIMIT 1`,
      [source],
    );
    return rows[0]!;
  }

  const entry = {
    type: 'error',
    path: '/env-setting',
    module: 'api',
    location: 'http://127.0.0.1:8080/env-setting',
    details: 'matching failed: 500',
    timestamp: '2024-05-01 10:20:30',
    tag1: 'PRE00002',
  };

  it('stores an entry without login (errors happen before login too)', async () => {
    const res = await s.app.inject({ method: 'POST', url: '/api/v1/log_receive.php', payload: entry });
    expect(res.statusCode).toBe(200);
    expect(envelope(res)).toEqual({ status: 200, message: 'OK', result: null });
    const row = await lastLog('client');
    expect(row).toMatchObject({
      level: 'error',
      type: 'error',
      path: '/env-setting',
      module: 'api',
      details: 'matching failed: 500',
      client_ts: '2024-05-01 10:20:30',
      tag1: 'PRE00002',
      user_id: null,
      ip: '127.0.0.1',
    });
  });

  it.each(ACTORS)('records the caller (actor %i) when a token is present', async (actor) => {
    const token = await loginAs(s.app, DEMO_LOGIN[actor]);
    const res = await injectAs(s.app, token, {
      method: 'POST',
      url: '/api/v1/log_receive.php',
      payload: entry,
    });
    expect(res.statusCode).toBe(200);
    const row = await lastLog('client');
    expect(row.login_id).toBe(DEMO_LOGIN[actor]);
    expect(row.actor).toBe(actor);
    expect(row.user_id).toEqual(expect.any(Number));
  });

  it('keeps only the first 1024 characters of the details (spec §9)', async () => {
    const res = await s.app.inject({
      method: 'POST',
      url: '/api/v1/log_receive.php',
      payload: { type: 'debug', details: 'x'.repeat(5000) },
    });
    expect(res.statusCode).toBe(200);
    const row = await lastLog('client');
    expect(row.details).toHaveLength(1024);
    expect(row.level).toBe('debug');
  });

  it('accepts a form-encoded body and only needs the type', async () => {
    const res = await s.app.inject({
      method: 'POST',
      url: '/api/v1/log_receive.php',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'type=trace&details=hello',
    });
    expect(res.statusCode).toBe(200);
    expect(await lastLog('client')).toMatchObject({ type: 'trace', details: 'hello', path: '', module: '' });
  });

  it('stores an unknown type with level info', async () => {
    await s.app.inject({ method: 'POST', url: '/api/v1/log_receive.php', payload: { type: 'auth-error' } });
    expect(await lastLog('client')).toMatchObject({ type: 'auth-error', level: 'info' });
  });

  it.each([
    ['a missing type', { details: 'x' }],
    ['details of the wrong type', { type: 'error', details: { nested: true } }],
    ['an over-long type', { type: 'e'.repeat(100) }],
    ['details beyond 16 KB', { type: 'error', details: 'x'.repeat(20000) }],
  ])('rejects %s with a 400 envelope', async (_name, payload) => {
    const res = await s.app.inject({ method: 'POST', url: '/api/v1/log_receive.php', payload });
    expect(res.statusCode).toBe(400);
    expect(envelope(res)).toMatchObject({ status: 400, result: null });
  });

  it('answers malformed JSON with a 400 envelope and a 2 MB body with a 413 envelope', async () => {
    const bad = await s.app.inject({
      method: 'POST',
      url: '/api/v1/log_receive.php',
      headers: { 'content-type': 'application/json' },
      payload: '{"type": "error",',
    });
    expect(bad.statusCode).toBe(400);
    expect(envelope(bad)).toMatchObject({ status: 400, result: null });
    const big = await s.app.inject({
      method: 'POST',
      url: '/api/v1/log_receive.php',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ type: 'error', details: 'x'.repeat(2 * 1024 * 1024) }),
    });
    expect(big.statusCode).toBe(413);
    expect(envelope(big)).toMatchObject({ status: 413, code: 'payload_too_large', result: null });
  });
});

describe('device_logging.php', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await build();
  });
  afterAll(async () => {
    await s.close();
  });

  it('stores the payload as JSON with source device and answers 200', async () => {
    const payload = { camera: 'FaceTime HD', mic: 'default', fps: 30, ok: true };
    const res = await s.app.inject({
      method: 'POST',
      url: '/api/v1/device_logging.php',
      payload: { payload },
    });
    expect(res.statusCode).toBe(200);
    expect(envelope(res)).toEqual({ status: 200, message: 'OK', result: null });
    const { rows } = await s.db.query<{ details: string; ip: string; user_id: number | null }>(
      `SELECT details, ip, user_id FROM logs WHERE source = 'device' ORDER BY id DESC LIMIT 1`,
    );
    expect(JSON.parse(rows[0]!.details)).toEqual(payload);
    expect(rows[0]!.ip).toBe('127.0.0.1');
    expect(rows[0]!.user_id).toBeNull();
  });

  it.each(ACTORS)('accepts a report from actor %i and records who sent it', async (actor) => {
    const token = await loginAs(s.app, DEMO_LOGIN[actor]);
    const res = await injectAs(s.app, token, {
      method: 'POST',
      url: '/api/v1/device_logging.php',
      payload: { payload: [1, 2] },
    });
    expect(res.statusCode).toBe(200);
    const { rows } = await s.db.query<{ login_id: string }>(
      `SELECT login_id FROM logs WHERE source = 'device' ORDER BY id DESC LIMIT 1`,
    );
    expect(rows[0]!.login_id).toBe(DEMO_LOGIN[actor]);
  });

  it('accepts an empty object (no payload)', async () => {
    const res = await s.app.inject({ method: 'POST', url: '/api/v1/device_logging.php', payload: {} });
    expect(res.statusCode).toBe(200);
  });

  it('refuses a payload over 16 KB with a 413 envelope', async () => {
    const res = await s.app.inject({
      method: 'POST',
      url: '/api/v1/device_logging.php',
      payload: { payload: { blob: 'y'.repeat(17 * 1024) } },
    });
    expect(res.statusCode).toBe(413);
    expect(envelope(res)).toMatchObject({ status: 413, code: 'payload_too_large', result: null });
    const huge = await s.app.inject({
      method: 'POST',
      url: '/api/v1/device_logging.php',
      payload: { payload: 'z'.repeat(2 * 1024 * 1024) },
    });
    expect(huge.statusCode).toBe(413);
    expect(envelope(huge).status).toBe(413);
  });

  it('answers malformed JSON with a 400 envelope', async () => {
    const res = await s.app.inject({
      method: 'POST',
      url: '/api/v1/device_logging.php',
      headers: { 'content-type': 'application/json' },
      payload: '{payload: nope}',
    });
    expect(res.statusCode).toBe(400);
    expect(envelope(res)).toMatchObject({ status: 400, result: null });
  });
});

describe('log_receive.php with NUL characters', () => {
  it('stores the entry without them instead of failing', async () => {
    const s = await build();
    try {
      const res = await s.app.inject({
        method: 'POST',
        url: '/api/v1/log_receive.php',
        payload: { type: 'error', details: 'a\u0000b', module: '\u0000' },
      });
      expect(res.statusCode).toBe(200);
      const { rows } = await s.db.query<{ details: string; module: string }>(
        `SELECT details, module FROM logs WHERE source = 'client' ORDER BY id DESC LIMIT 1`,
      );
      expect(rows[0]).toEqual({ details: 'ab', module: '' });
    } finally {
      await s.close();
    }
  });
});
