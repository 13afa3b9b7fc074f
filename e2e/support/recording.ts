// Steps shared by the recording e2e spec (e2e/recording.spec.ts) and the recording bench (bench/recording.mjs,
// which loads this file through tsx as bench/search.mjs loads the server's modules).
import { readdirSync, readFileSync } from 'node:fs';
import type { Response } from '@playwright/test';

/**
 * A JSON POST to the reference server, with a bearer token when given: the spec's Playwright request
 * context or the bench's fetch. `body` is the parsed response body (null when it is not JSON).
 */
export type Post = (
  path: string,
  data: object,
  token?: string,
) => Promise<{ status: number; body: { status?: number; result?: unknown } | null }>;

/**
 * Readies the server for a recording run: the S3 stand-in accepts small parts (64 KiB; the server's part size
 * comes from its env), and a system manager creates the short URL `urlKey` of a sitting that records camera
 * and voice, in Japanese, with is_auth 0 and no AI identity check. Returns the system manager's token.
 */
export async function prepareRecordingSitting(post: Post, urlKey: string, examName: string): Promise<string> {
  const config = await post('/__s3/config', { minPartSize: 65_536 });
  if (config.status !== 200) throw new Error(`the S3 stand-in refused its config: HTTP ${config.status}`);
  const admin = await apiLogin(post, 'sysadmin01');
  const param = {
    lang: 'ja',
    is_mobile: 0,
    is_mc_startup: 1,
    is_proctor: 1,
    is_auth: 0,
    is_record: 1,
    is_voice_recording: 1,
    is_summary: 1,
    region: 'Online',
    exam_name: examName,
    max_rectime: 10800,
    matching_timeout: 5,
    is_ai_auth: 0,
    ai_idcard_type: '1,2,3',
  };
  const inserted = await post('/api/v1/shorten_url/insert.php', { url_key: urlKey, actor: 1, param }, admin);
  if (inserted.status !== 200 || inserted.body?.status !== 200)
    throw new Error(
      `short URL ${urlKey} not created: HTTP ${inserted.status} ${JSON.stringify(inserted.body)}`,
    );
  return admin;
}

/** Logs a demo account in (password demo-pass) and returns its access token. */
export async function apiLogin(post: Post, loginId: string): Promise<string> {
  const r = await post('/api/v1/login.php', { login_id: loginId, password: 'demo-pass' });
  const token = (r.body?.result as { access_token?: unknown } | undefined)?.access_token;
  if (typeof token !== 'string') throw new Error(`login of ${loginId} failed with HTTP ${r.status}`);
  return token;
}

/**
 * A checker accepts the identity check of examinee `tester` (login id) through the API, as a monitoring
 * console would: it waits until the examinee is matched with a signaling channel, then sets status 3.
 */
export async function acceptIdentityCheck(post: Post, tester: string, checker = 'checker01'): Promise<void> {
  const token = await apiLogin(post, checker);
  const testerId = await poll(`${tester} matched with a signaling channel`, 40_000, 1000, async () => {
    const r = await post('/api/v1/matching.php', {}, token);
    const result = r.body?.result as
      { matchings?: { tester_id: number; login_id: string; signaling_channel: unknown }[] } | undefined;
    return result?.matchings?.find((m) => m.login_id === tester && m.signaling_channel)?.tester_id;
  });
  await poll(`the identity check of ${tester} accepted`, 30_000, 2000, async () => {
    const r = await post('/api/v1/tester/status.php', { tester_id: testerId, status: 3 }, token);
    return r.status === 200;
  });
}

/** Calls `attempt` every `intervalMs` until it returns a truthy value, which it returns; throws after `timeoutMs`. */
async function poll<T>(
  what: string,
  timeoutMs: number,
  intervalMs: number,
  attempt: () => Promise<T | undefined | false>,
): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await attempt();
    if (v) return v;
    if (Date.now() >= end) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/** Whether a response answers the examinee's "recording started" call (tester/recording.php, method PUT). */
export function isRecordingStart(r: Response): boolean {
  return r.url().includes('/tester/recording.php') && r.request().postDataJSON()?.method === 'PUT';
}

export interface ProcStat {
  ppid: number;
  pgid: number;
  /** utime + stime, in clock ticks. */
  ticks: number;
}

/** A process's parent, process group and CPU ticks, from /proc/<pid>/stat; null when it is gone. */
export function procStat(pid: number | 'self'): ProcStat | null {
  try {
    const s = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The fields after the command name (in parentheses, and it may hold spaces): state ppid pgrp …
    const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
    return { ppid: Number(f[1]), pgid: Number(f[2]), ticks: Number(f[11]) + Number(f[12]) };
  } catch {
    return null;
  }
}

/** The processes of this machine as /proc shows them, each with its procStat. */
export function processes(): (ProcStat & { pid: number })[] {
  const out: (ProcStat & { pid: number })[] = [];
  for (const d of readdirSync('/proc').filter((x) => /^\d+$/.test(x))) {
    const s = procStat(Number(d));
    if (s) out.push({ pid: Number(d), ...s });
  }
  return out;
}
