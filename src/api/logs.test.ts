import { afterEach, describe, expect, it, vi } from 'vitest';
import { http, HttpResponse } from 'msw';
import { server } from '../../tests/msw/server';
import { onApiError } from './client';
import { sendClientLog, sendDeviceLog } from './logs';
import type { ApiError } from './api-error';

afterEach(() => vi.restoreAllMocks());

function capture(endpoint: string, status = 200) {
  const bodies: Array<Record<string, unknown>> = [];
  server.use(
    http.post(`*/api/v1/${endpoint}.php`, async ({ request }) => {
      bodies.push((await request.json()) as Record<string, unknown>);
      return HttpResponse.json({ status, message: status === 200 ? 'OK' : 'boom', result: null }, { status });
    }),
  );
  return bodies;
}

describe('log_receive (spec §7)', () => {
  it('posts type, path, module, location, details, timestamp and tag1, details cut to 1024 characters', async () => {
    const bodies = capture('log_receive');
    await sendClientLog({ type: 'error', module: 'api', details: 'd'.repeat(3000), tag1: 'auth-error' });
    expect(bodies).toHaveLength(1);
    const b = bodies[0]!;
    expect(Object.keys(b).sort()).toEqual(
      ['details', 'location', 'module', 'path', 'tag1', 'timestamp', 'type'].sort(),
    );
    expect(b).toMatchObject({
      type: 'error',
      module: 'api',
      tag1: 'auth-error',
      path: window.location.pathname,
    });
    expect(b.details).toHaveLength(1024);
    // spec §3 log entry: timestamp yyyy-MM-dd hh:mm:ss
    expect(b.timestamp).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
  });

  it('ignores a 500 (and any failure) from log_receive without reporting it to the error listeners', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const reported: ApiError[] = [];
    const off = onApiError((e) => reported.push(e));
    try {
      capture('log_receive', 500);
      await expect(sendClientLog({ type: 'error', module: 'x', details: 'y' })).resolves.toBeUndefined();
      server.use(http.post('*/api/v1/log_receive.php', () => HttpResponse.error()));
      await expect(sendClientLog({ type: 'error', module: 'x', details: 'y' })).resolves.toBeUndefined();
    } finally {
      off();
    }
    expect(reported).toEqual([]);
  });
});

describe('a failing log_receive never feeds itself', () => {
  it('one failed delivery sends exactly one request, with the logger wired to log_receive as the app does', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const { logger, setLogSink, resetLogSinkBudget } = await import('../lib/logger');
    resetLogSinkBudget();
    setLogSink((e) => void sendClientLog(e));
    let hits = 0;
    server.use(
      http.post('*/api/v1/log_receive.php', () => {
        hits += 1;
        return HttpResponse.json({ status: 429, message: 'slow down', result: null }, { status: 429 });
      }),
    );
    try {
      logger.error('api', 'something failed');
      await new Promise((r) => setTimeout(r, 200));
      expect(hits).toBe(1);
    } finally {
      setLogSink(null);
      resetLogSinkBudget();
    }
  });
});

describe('device_logging (spec §7)', () => {
  it('posts the payload and expects 200', async () => {
    const bodies = capture('device_logging');
    await sendDeviceLog({ camera: 'ok' });
    expect(bodies).toEqual([{ payload: { camera: 'ok' } }]);
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    capture('device_logging', 500);
    await expect(sendDeviceLog({})).rejects.toMatchObject({ status: 500, endpoint: 'device_logging' });
  });
});
