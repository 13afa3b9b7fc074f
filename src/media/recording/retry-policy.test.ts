import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  DEFAULT_RETRY_POLICY,
  TimedOutError,
  UploadGiveUpError,
  classifyError,
  createRetryTracker,
  realClock,
  runWithRetry,
} from './retry-policy';

/** An error shaped like an SDK service exception. */
function s3Error(name: string, status: number): Error {
  return Object.assign(new Error(name), { name, $fault: 'client', $metadata: { httpStatusCode: status } });
}

describe('classifyError', () => {
  it('treats fetch failures as network errors', () => {
    expect(classifyError(new TypeError('Failed to fetch'))).toBe('network');
    expect(classifyError(Object.assign(new Error('x'), { name: 'NetworkingError' }))).toBe('network');
    expect(classifyError(new Error('NetworkError when attempting to fetch resource.'))).toBe('network');
  });

  it('treats SDK, S3 and our own timeouts as timeouts', () => {
    expect(classifyError(Object.assign(new Error('slow'), { name: 'TimeoutError' }))).toBe('timeout');
    expect(classifyError(s3Error('RequestTimeout', 400))).toBe('timeout');
    expect(classifyError(new TimedOutError(60_000), true)).toBe('timeout');
    expect(classifyError(Object.assign(new Error('aborted'), { name: 'AbortError' }), true)).toBe('timeout');
  });

  it('asks for new credentials on ExpiredToken', () => {
    expect(classifyError(s3Error('ExpiredToken', 400))).toBe('expired-credentials');
  });

  it('retries 500 and 503, aborts other statuses', () => {
    expect(classifyError(s3Error('InternalError', 500))).toBe('server-busy');
    expect(classifyError(s3Error('SlowDown', 503))).toBe('server-busy');
    expect(classifyError(s3Error('Unknown', 503))).toBe('server-busy');
    expect(classifyError(s3Error('NoSuchUpload', 404))).toBe('other');
    expect(classifyError(s3Error('AccessDenied', 403))).toBe('other');
    expect(classifyError(s3Error('NotImplemented', 501))).toBe('other');
    expect(classifyError(s3Error('BadGateway', 502))).toBe('other');
  });

  it('treats an abort we did not cause and non-errors as other', () => {
    expect(classifyError(Object.assign(new Error('aborted'), { name: 'AbortError' }))).toBe('other');
    expect(classifyError('boom')).toBe('other');
    expect(classifyError(null)).toBe('other');
    expect(classifyError(new Error('bug'))).toBe('other');
  });
});

describe('createRetryTracker', () => {
  it('doubles server-busy delays up to 30 s and stops after 10', () => {
    const t = createRetryTracker();
    const delays = Array.from({ length: 10 }, () => {
      const d = t.next('server-busy');
      return d.action === 'retry' ? d.delayMs : -1;
    });
    expect(delays).toEqual([1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000, 30000, 30000]);
    expect(t.next('server-busy')).toMatchObject({ action: 'give-up', reason: 'server-busy-exhausted' });
  });

  it('refreshes credentials at most 3 times in a row', () => {
    const t = createRetryTracker();
    for (let i = 0; i < 3; i++) {
      expect(t.next('expired-credentials')).toMatchObject({ action: 'retry', refreshCredentials: true });
    }
    expect(t.next('expired-credentials')).toMatchObject({
      action: 'give-up',
      reason: 'credentials-exhausted',
    });
  });
});

describe('runWithRetry', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    vi.setSystemTime(new Date('2026-05-01T09:00:00Z'));
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('retries network errors every 1 s for 60 minutes, then gives up as network-exhausted', async () => {
    const start = Date.now();
    const attemptTimes: number[] = [];
    const attempt = vi.fn(() => {
      attemptTimes.push(Date.now() - start);
      return Promise.reject(new TypeError('Failed to fetch'));
    });
    const retried = vi.fn();
    const result = runWithRetry(attempt, DEFAULT_RETRY_POLICY, realClock, { onRetry: retried });
    const settled = expect(result).rejects.toMatchObject({ reason: 'network-exhausted' });
    await vi.advanceTimersByTimeAsync(60 * 60 * 1000);
    await settled;
    expect(attempt).toHaveBeenCalledTimes(3601);
    expect(attemptTimes.slice(0, 3)).toEqual([0, 1000, 2000]);
    expect(attemptTimes.at(-1)).toBe(60 * 60 * 1000);
    expect(retried.mock.calls[0]?.[0]).toMatchObject({ errorClass: 'network', delayMs: 1000 });
    const err = await result.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UploadGiveUpError);
    expect((err as UploadGiveUpError).cause).toBeInstanceOf(TypeError);
  });

  it('succeeds after network errors', async () => {
    let n = 0;
    const attempt = vi.fn(() =>
      ++n < 4 ? Promise.reject(new TypeError('Failed to fetch')) : Promise.resolve('ok'),
    );
    const result = runWithRetry(attempt);
    await vi.advanceTimersByTimeAsync(3000);
    await expect(result).resolves.toBe('ok');
    expect(attempt).toHaveBeenCalledTimes(4);
  });

  it('retries timeouts 10 times (11 attempts), then gives up', async () => {
    const attempt = vi.fn(() => Promise.reject(new TimedOutError(60_000)));
    const result = runWithRetry(attempt);
    const settled = expect(result).rejects.toMatchObject({
      reason: 'timeouts-exhausted',
      errorClass: 'timeout',
    });
    await vi.advanceTimersByTimeAsync(10 * 1000);
    await settled;
    expect(attempt).toHaveBeenCalledTimes(11);
  });

  it('aborts at once on other errors', async () => {
    const attempt = vi.fn(() => Promise.reject(s3Error('NoSuchUpload', 404)));
    await expect(runWithRetry(attempt)).rejects.toMatchObject({ reason: 'rejected', errorClass: 'other' });
    expect(attempt).toHaveBeenCalledTimes(1);
  });

  it('refreshes credentials before retrying an ExpiredToken', async () => {
    const order: string[] = [];
    let expired = true;
    const attempt = vi.fn(() => {
      order.push('attempt');
      return expired ? Promise.reject(s3Error('ExpiredToken', 400)) : Promise.resolve('ok');
    });
    const refreshCredentials = vi.fn(() => {
      order.push('refresh');
      expired = false;
      return Promise.resolve();
    });
    await expect(
      runWithRetry(attempt, DEFAULT_RETRY_POLICY, realClock, { refreshCredentials }),
    ).resolves.toBe('ok');
    expect(order).toEqual(['attempt', 'refresh', 'attempt']);
  });

  it('stops waiting when the signal aborts', async () => {
    const controller = new AbortController();
    const attempt = vi.fn(() => Promise.reject(new TypeError('Failed to fetch')));
    const result = runWithRetry(attempt, DEFAULT_RETRY_POLICY, realClock, { signal: controller.signal });
    const settled = expect(result).rejects.toThrow('stopped');
    await vi.advanceTimersByTimeAsync(2500);
    controller.abort(new Error('stopped'));
    await settled;
    expect(attempt).toHaveBeenCalledTimes(3);
  });
});
