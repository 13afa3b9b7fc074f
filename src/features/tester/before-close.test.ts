import { describe, expect, it } from 'vitest';
import { http, HttpResponse } from 'msw';
import { server } from '../../../tests/msw/server';
import { loginState } from '../../../tests/render';
import { setupStore } from '../../app/store';
import { initialTesterState } from './tester-slice';
import { BEFORE_CLOSE_WAIT_MS, announceBeforeClose } from './tester-thunks';

function store() {
  return setupStore({
    ...loginState(1),
    tester: { ...initialTesterState, testerId: 7, testerState: 5 },
  } as never);
}

function messages(answer: boolean) {
  const posted: Record<string, unknown>[] = [];
  server.use(
    http.post('*/api/v1/webrtc_message.php', async ({ request }) => {
      const b = (await request.json()) as Record<string, unknown>;
      posted.push(b);
      return HttpResponse.json({
        status: 200,
        message: 'OK',
        result: {
          messages: [
            { id: 50, send_type: 1, message_type: 3, kind: 'command', message: b.message, created_at: '' },
          ],
        },
      });
    }),
    http.get('*/api/v1/webrtc_message.php', ({ request }) => {
      expect(new URL(request.url).searchParams.get('since_id')).toBe('50');
      const messages = answer
        ? [
            {
              id: 51,
              send_type: 0,
              message_type: 3,
              kind: 'command',
              message: 'BEFORE_CLOSE_OK',
              created_at: '',
            },
          ]
        : [];
      return HttpResponse.json({ status: 200, message: 'OK', result: { messages } });
    }),
  );
  return posted;
}

describe('announceBeforeClose (spec §3 BEFORE_CLOSE marker)', () => {
  it('posts BEFORE_CLOSE as a monitoring command and returns once BEFORE_CLOSE_OK arrives', async () => {
    const posted = messages(true);
    const s = store();
    const t0 = Date.now();
    await expect(s.dispatch(announceBeforeClose())).resolves.toBe(true);
    expect(Date.now() - t0).toBeLessThan(BEFORE_CLOSE_WAIT_MS);
    expect(posted).toEqual([
      { tester_id: 7, send_type: 1, message_type: 3, message: 'BEFORE_CLOSE', kind: 'command' },
    ]);
  });

  it('gives up after the bounded wait when nobody answers', async () => {
    messages(false);
    const s = store();
    const t0 = Date.now();
    await expect(s.dispatch(announceBeforeClose())).resolves.toBe(false);
    const took = Date.now() - t0;
    expect(took).toBeGreaterThanOrEqual(BEFORE_CLOSE_WAIT_MS - 50);
    expect(took).toBeLessThan(BEFORE_CLOSE_WAIT_MS + 1500);
  });

  it('does nothing without a session', async () => {
    const s = setupStore({ tester: { ...initialTesterState, testerId: 7 } } as never);
    await expect(s.dispatch(announceBeforeClose())).resolves.toBe(false);
  });
});
