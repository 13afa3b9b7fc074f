import { createHmac } from 'node:crypto';

/** One entry of GetIceServerConfig's IceServerList, as KVS answers it. */
export interface KvsIceServer {
  Uris: string[];
  Username?: string;
  Password?: string;
  Ttl?: number;
}

/**
 * The STUN/TURN servers the stand-in hands out (AWS KVS hands out its own TURN): fixed entries from
 * ICE_SERVERS, and TURN servers with time-limited credentials of the TURN REST API (TURN_URLS + TURN_SECRET,
 * what coturn checks with `use-auth-secret` / `static-auth-secret`).
 */
export interface IceSettings {
  /** ICE_SERVERS: a JSON list of `{urls, username?, credential?}` handed out as they are (e.g. a STUN server). */
  fixed: KvsIceServer[];
  /** TURN_URLS (comma-separated `turn:` / `turns:` URIs) with TURN_SECRET; null when not configured. */
  turn: { uris: string[]; secret: string; ttlSeconds: number } | null;
}

const ICE_URI = /^(stun|stuns|turn|turns):[^\s,]+$/;

function uriList(v: unknown, what: string): string[] {
  const list = Array.isArray(v) ? v : [v];
  if (!list.length || list.some((u) => typeof u !== 'string' || !ICE_URI.test(u)))
    throw new Error(`${what}: every URL must be stun:, stuns:, turn: or turns: (got ${JSON.stringify(v)})`);
  return list as string[];
}

/** Reads ICE_SERVERS, TURN_URLS, TURN_SECRET and TURN_TTL_SECONDS (default 300 s, as KVS's TURN); throws on bad values. */
export function loadIceSettings(env: NodeJS.ProcessEnv): IceSettings {
  const fixed: KvsIceServer[] = [];
  if (env.ICE_SERVERS) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(env.ICE_SERVERS);
    } catch (err) {
      throw new Error('ICE_SERVERS must be JSON: [{"urls":"stun:stun.example.org:3478"}, …]', { cause: err });
    }
    if (!Array.isArray(parsed)) throw new Error('ICE_SERVERS must be a JSON list.');
    for (const e of parsed as { urls?: unknown; username?: unknown; credential?: unknown }[]) {
      const entry: KvsIceServer = { Uris: uriList(e?.urls, 'ICE_SERVERS') };
      if (typeof e.username === 'string') entry.Username = e.username;
      if (typeof e.credential === 'string') entry.Password = e.credential;
      fixed.push(entry);
    }
  }
  const urls = (env.TURN_URLS ?? '')
    .split(',')
    .map((u) => u.trim())
    .filter(Boolean);
  const secret = env.TURN_SECRET ?? '';
  if (urls.length && !secret) throw new Error('TURN_URLS needs TURN_SECRET (coturn static-auth-secret).');
  if (secret && !urls.length) throw new Error('TURN_SECRET is set but TURN_URLS is empty.');
  const ttl = env.TURN_TTL_SECONDS ? Number(env.TURN_TTL_SECONDS) : 300;
  if (!Number.isInteger(ttl) || ttl < 60 || ttl > 86_400)
    throw new Error(`TURN_TTL_SECONDS must be 60–86400 (got ${env.TURN_TTL_SECONDS})`);
  const turn = urls.length ? { uris: uriList(urls, 'TURN_URLS'), secret, ttlSeconds: ttl } : null;
  if (turn && turn.uris.some((u) => !u.startsWith('turn')))
    throw new Error('TURN_URLS must be turn: or turns: URLs.');
  return { fixed, turn };
}

/**
 * A TURN REST API credential (the scheme coturn implements with `use-auth-secret`): username
 * `<expiry unix seconds>:<user>`, password base64(HMAC-SHA1(secret, username)).
 */
export function turnRestCredential(
  secret: string,
  user: string,
  ttlSeconds: number,
  nowMs = Date.now(),
): { username: string; password: string } {
  const username = `${Math.floor(nowMs / 1000) + ttlSeconds}:${user}`;
  return { username, password: createHmac('sha1', secret).update(username).digest('base64') };
}

/** GetIceServerConfig's IceServerList for one caller: the fixed entries, then TURN with fresh credentials. */
export function iceServerList(settings: IceSettings, user: string, nowMs = Date.now()): KvsIceServer[] {
  const out = settings.fixed.map((e) => ({ ...e, Uris: [...e.Uris] }));
  if (settings.turn) {
    const c = turnRestCredential(settings.turn.secret, user, settings.turn.ttlSeconds, nowMs);
    out.push({
      Uris: [...settings.turn.uris],
      Username: c.username,
      Password: c.password,
      Ttl: settings.turn.ttlSeconds,
    });
  }
  return out;
}
