import { afterEach, describe, expect, it } from 'vitest';
import { build, injectAs, loginAs, type TestServer } from '../helper';

/**
 * Someone writes fake error entries into the administrators' log view through the open log endpoints. What
 * they send is kept as client-reported, attributed to its session (or none), bounded per session and per
 * address, and scrubbed of secrets.
 */
let s: TestServer;

afterEach(async () => {
  await s?.close();
});

const forged = {
  type: 'error',
  module: 'auth',
  details: 'database corrupted, call +81-00-0000',
  location: '/x',
};

async function rows() {
  const { rows } = await s.db.query<{
    source: string;
    level: string;
    login_id: string | null;
    actor: number | null;
    session_id: string | number | null;
    location: string;
    details: string;
  }>(
    `SELECT source, level, login_id, actor, session_id, location, details FROM logs WHERE source IN ('client', 'device') ORDER BY id`,
  );
  return rows;
}

describe('forging log entries through log_receive / device_logging', () => {
  it('stores an anonymous entry as client-reported with no one attributed, and limits anonymous senders per address', async () => {
    s = await build();
    const send = (ip: string) =>
      s.app.inject({ method: 'POST', url: '/api/v1/log_receive.php', payload: forged, remoteAddress: ip });
    expect((await send('203.0.113.5')).statusCode).toBe(200);
    const [row] = await rows();
    expect(row).toMatchObject({
      source: 'client',
      level: 'error',
      login_id: null,
      actor: null,
      session_id: null,
    });
    const statuses: number[] = [];
    for (let i = 0; i < 70; i++) statuses.push((await send('203.0.113.5')).statusCode);
    expect(statuses.filter((x) => x === 200)).toHaveLength(59); // 60 per minute and address, the first included
    expect(statuses.at(-1)).toBe(429);
    // Another address is not affected.
    expect((await send('203.0.113.6')).statusCode).toBe(200);
  });

  it('attributes a logged-in sender’s entries to its session and limits each session whatever its address', async () => {
    s = await build();
    const token = await loginAs(s.app, 'tester05');
    const send = (i: number) =>
      injectAs(s.app, token, {
        method: 'POST',
        url: '/api/v1/device_logging.php',
        payload: { payload: { n: i } },
        remoteAddress: `198.51.100.${(i % 200) + 1}`,
      });
    expect((await send(0)).statusCode).toBe(200);
    const { rows: sess } = await s.db.query<{ id: string | number }>(
      `SELECT s.id FROM sessions s JOIN users u ON u.id = s.user_id WHERE u.login_id = 'tester05' ORDER BY s.id DESC LIMIT 1`,
    );
    const [row] = await rows();
    expect(row).toMatchObject({ source: 'device', login_id: 'tester05', actor: 1 });
    expect(String(row!.session_id)).toBe(String(sess[0]!.id));
    const statuses: number[] = [];
    for (let i = 1; i <= 125; i++) statuses.push((await send(i)).statusCode);
    expect(statuses.filter((x) => x === 200)).toHaveLength(119);
    expect(statuses.at(-1)).toBe(429);
  });

  it('keeps no secret a client reports in the location or details', async () => {
    s = await build();
    const res = await s.app.inject({
      method: 'POST',
      url: '/api/v1/log_receive.php',
      payload: {
        type: 'error',
        location: 'https://exam.example/?actor=1&login_id=tester09&password=S3cret',
        details: 'GET /s3/r/1.webm?X-Amz-Signature=abc123 Bearer tok.en-1',
      },
    });
    expect(res.statusCode).toBe(200);
    const [row] = await rows();
    expect(row!.location).toBe('https://exam.example/?actor=1&login_id=tester09&password=[redacted]');
    expect(row!.details).not.toMatch(/abc123|tok\.en-1/);
  });
});
