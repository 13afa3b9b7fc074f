import { describe, expect, it, vi } from 'vitest';
import { http, HttpResponse } from 'msw';
import { server } from '../../../tests/msw/server';
import { parseServerTime, syncServerClock } from './server-clock';

describe('server clock (spec §2, §8)', () => {
  it('parses yyyy-MM-dd HH:mm:ss as local time and rejects anything else', () => {
    expect(parseServerTime('2026-11-22 09:30:05')?.getTime()).toBe(
      new Date(2026, 10, 22, 9, 30, 5).getTime(),
    );
    expect(parseServerTime('22/11/2026')).toBeNull();
  });

  it('stores the server time and the offset to the browser clock, sending the browser time zone', async () => {
    const seen: string[] = [];
    server.use(
      http.get('*/api/servertime', ({ request }) => {
        seen.push(new URL(request.url).searchParams.get('timeZone') ?? '');
        return HttpResponse.json({
          status: 200,
          message: 'OK',
          result: { serverTime: '2026-11-22 09:30:05', timeZone: 'Asia/Tokyo' },
        });
      }),
    );
    const dispatch = vi.fn();
    const browserNow = new Date(2026, 10, 22, 9, 30, 0).getTime();
    await syncServerClock(dispatch, () => browserNow);
    expect(seen[0]).not.toBe('');
    expect(dispatch).toHaveBeenCalledWith(
      expect.objectContaining({ payload: { serverTime: '2026-11-22 09:30:05', clockOffsetMs: 6000 } }),
    );
  });

  it('keeps the stored time when the call fails (logged only)', async () => {
    const err = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    server.use(
      http.get('*/api/servertime', () =>
        HttpResponse.json({ status: 500, message: 'x', result: null }, { status: 500 }),
      ),
    );
    const dispatch = vi.fn();
    await syncServerClock(dispatch);
    expect(dispatch).not.toHaveBeenCalled();
    expect(err).toHaveBeenCalled();
    err.mockRestore();
  });
});
