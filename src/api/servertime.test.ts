import { http, HttpResponse } from 'msw';
import { server } from '../../tests/msw/server';
import { fetchServerTimeOrNull, getServerTime } from './servertime';

describe('servertime', () => {
  afterEach(() => vi.restoreAllMocks());

  it('GETs /api/servertime with the time zone', async () => {
    let tz: string | null = null;
    server.use(
      http.get('*/api/servertime', ({ request }) => {
        tz = new URL(request.url).searchParams.get('timeZone');
        return HttpResponse.json({
          status: 200,
          message: 'OK',
          result: { serverTime: '2024-05-01 10:00:00', timeZone: 'Asia/Tokyo' },
        });
      }),
    );
    await expect(getServerTime('Asia/Tokyo')).resolves.toBe('2024-05-01 10:00:00');
    expect(tz).toBe('Asia/Tokyo');
  });

  it('logs a failure to the console and returns null (the stored time stays)', async () => {
    const err = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    server.use(
      http.get('*/api/servertime', () =>
        HttpResponse.json({ status: 500, message: 'x', result: null }, { status: 500 }),
      ),
    );
    await expect(fetchServerTimeOrNull('UTC')).resolves.toBeNull();
    expect(err).toHaveBeenCalled();
  });
});
