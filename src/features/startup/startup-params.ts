import { camelKey } from '../../lib/case';
import { logger } from '../../lib/logger';
import {
  STARTUP_FIELDS,
  STARTUP_KEY_ALIASES,
  defaultStartupParams,
  type StartupKey,
  type StartupParams,
} from './startup-fields';

/** Session storage key of the start-up parameters (spec §2). */
export const STARTUP_STORAGE_KEY = 'startup';

const NUMERIC = /^-?\d+(\.\d+)?$/;
// spec §3: "empty-quote markers become empty text".
const EMPTY_MARKERS = new Set(['""', "''"]);

function isStartupKey(k: string): k is StartupKey {
  return Object.prototype.hasOwnProperty.call(STARTUP_FIELDS, k);
}

/** The field a query key names: an alias, the snake_case name, or the camelCase name itself. */
export function startupKeyOf(queryKey: string): StartupKey | null {
  const alias = STARTUP_KEY_ALIASES[queryKey];
  if (alias) return alias;
  const camel = camelKey(queryKey);
  return isStartupKey(camel) ? camel : null;
}

/**
 * Spec §3 query-value conversion: numeric strings become numbers, empty-quote markers become empty text,
 * other values are the decoded text (URLSearchParams has already percent-decoded them).
 */
export function convertQueryValue(decoded: string): string | number {
  if (EMPTY_MARKERS.has(decoded)) return '';
  if (NUMERIC.test(decoded)) return Number(decoded);
  return decoded;
}

/**
 * The value for `key` from a decoded query text, in the field's declared type. A text field keeps the text
 * as written (a numeric-looking loginId "007" stays "007"); a number field that gets empty or non-numeric
 * text falls back to its default.
 */
function coerceQueryValue(key: StartupKey, decoded: string): string | number | null {
  const field = STARTUP_FIELDS[key];
  const converted = convertQueryValue(decoded);
  if (field.type === 'string') return typeof converted === 'number' ? decoded : converted;
  if (typeof converted === 'number') return converted;
  logger.debug('startup', `start-up parameter ${key} is not a number; using the default`, decoded);
  return field.default;
}

/** A stored value in the field's type, or undefined when it does not fit (then the default applies). */
function coerceStoredValue(key: StartupKey, v: unknown): string | number | null | undefined {
  const field = STARTUP_FIELDS[key];
  if (field.type === 'string')
    return typeof v === 'string' ? v : typeof v === 'number' ? String(v) : undefined;
  if (v === null || (typeof v === 'number' && Number.isFinite(v))) return v;
  return undefined;
}

/** The known start-up fields present in a query string (unknown keys are ignored). */
export function parseStartupQuery(search: string): Partial<StartupParams> {
  const out: Record<string, unknown> = {};
  const query = new URLSearchParams(search);
  for (const [rawKey, value] of query) {
    const key = startupKeyOf(rawKey);
    // rawStartupUrl is never taken from the query: it is this page's own address (see readStartupParams).
    if (!key || key === 'rawStartupUrl') continue;
    out[key] = coerceQueryValue(key, value);
  }
  return out as Partial<StartupParams>;
}

function loadStored(storage: Storage): Partial<StartupParams> | null {
  let raw: string | null;
  try {
    raw = storage.getItem(STARTUP_STORAGE_KEY);
  } catch {
    return null;
  }
  if (!raw) return null;
  try {
    const parsed: unknown = JSON.parse(raw);
    if (!parsed || typeof parsed !== 'object') return null;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(parsed)) {
      if (!isStartupKey(k) || SECRET_FIELDS.has(k)) continue;
      const c = coerceStoredValue(k, v);
      if (c !== undefined) out[k] = c;
    }
    return out as Partial<StartupParams>;
  } catch {
    return null;
  }
}

/**
 * Start-up fields that must leave no trace (a JT start-up's password): removed from the address bar and
 * history at once (`scrubStartupUrl`), never stored, never part of rawStartupUrl. The login id stays: it is
 * not a secret, and it marks the session as a JT start-up (spec §4 cleanup goes to /close).
 */
const SECRET_FIELDS: ReadonlySet<StartupKey> = new Set<StartupKey>(['password']);

/** An address with the secret start-up fields removed from its query (unchanged when it is not a URL). */
function withoutSecrets(href: string): string {
  if (!href) return href;
  let url: URL;
  try {
    url = new URL(href);
  } catch {
    return href;
  }
  const query = new URLSearchParams(url.search);
  for (const key of [...query.keys()]) {
    const field = startupKeyOf(key);
    if (field && SECRET_FIELDS.has(field)) query.delete(key);
  }
  const rest = query.toString();
  url.search = rest ? `?${rest}` : '';
  return url.toString();
}

/** The http(s) URL a start-up link names (a bare host name counts as https), or null. */
function linkUrl(value: string): URL | null {
  const v = value.trim();
  if (!v) return null;
  for (const candidate of [v, `https://${v}`]) {
    try {
      const u = new URL(candidate);
      if ((u.protocol === 'https:' || u.protocol === 'http:') && u.host) return u;
    } catch {
      /* try the next form */
    }
  }
  return null;
}

/**
 * The start-up links a page shows — the login page's "forgot password" link (`passwordUrl`, by origin) and the
 * header's target badge (`target`, by host, which is what the badge shows) — kept only when they point at the
 * SPA's own origin or one the deployment allows (config.json `allowedLinkOrigins`). Others are dropped and
 * logged: a crafted start-up URL must not plant a phishing link or a fake server name.
 */
export function restrictStartupLinks(
  params: StartupParams,
  allowedOrigins: readonly string[],
  ownOrigin: string,
): StartupParams {
  const allowed = [ownOrigin, ...allowedOrigins].map(linkUrl).filter((u): u is URL => u !== null);
  const origins = new Set(allowed.map((u) => u.origin));
  const hosts = new Set(allowed.map((u) => u.host));
  const out = { ...params };
  for (const key of ['passwordUrl', 'target'] as const) {
    const value = out[key];
    if (!value) continue;
    const u = linkUrl(value);
    if (u && (key === 'passwordUrl' ? origins.has(u.origin) : hosts.has(u.host))) continue;
    logger.error('startup', `start-up parameter ${key} names an origin that is not allowed; ignored`, value);
    out[key] = '';
  }
  return out;
}

/** The page's address and query as it was opened, before `scrubStartupUrl` removed the secret fields. */
export interface OpenedAddress {
  search: string;
  /** The address without the secret fields (what rawStartupUrl records). */
  href: string;
}

/**
 * Removes a JT start-up's password from the address bar and the history entry
 * (history.replaceState, so Back cannot show them) and returns the query as it was opened, for
 * readStartupParams. Runs before anything else of the app (src/app/early-scrub.ts is main.tsx's first
 * import). Other parameters stay, so a reload still finds them.
 */
export function scrubStartupUrl(
  location: Pick<Location, 'search' | 'href'>,
  history: Pick<History, 'replaceState' | 'state'>,
): OpenedAddress {
  const search = location.search;
  const href = withoutSecrets(location.href);
  if (href === location.href) return { search, href };
  try {
    history.replaceState(history.state, '', href);
  } catch {
    // A sandboxed document may refuse; the password is still never stored.
  }
  return { search, href };
}

/**
 * Keeps the start-up parameters in session storage under 'startup' (spec §2), without the JT start-up's
 * login id and password. Storage errors are ignored.
 */
export function saveStartupParams(params: StartupParams, storage: Storage): void {
  const kept: Partial<StartupParams> = { ...params };
  for (const k of SECRET_FIELDS) delete kept[k];
  delete kept.rawStartupUrl;
  kept.rawStartupUrl = withoutSecrets(params.rawStartupUrl);
  try {
    storage.setItem(STARTUP_STORAGE_KEY, JSON.stringify(kept));
  } catch {
    // Storage full or blocked: the parameters then last for this page only (the storage check reports it).
  }
}

/**
 * Reads the start-up parameters (spec §2 start-up check 1, spec §3): the query string, converted and typed,
 * with defaults for missing fields, saved to session storage under 'startup'.
 *
 * Restore rule ("restored after a page refresh if not already set"): fields given in the query win and
 * missing ones come from storage. A query that names `actor` is a new start-up, though, and starts from the
 * defaults instead: it must never inherit another start-up's loginId/password (a JT start-up would log in as
 * that user). rawStartupUrl is the page's address when the query holds start-up fields and is a new start-up
 * (or nothing was stored); otherwise the stored one is kept, since it is the address to reload on cleanup
 * (spec §4 window exit).
 *
 * A missing query (no start-up fields and nothing stored) is logged as an error but does not block.
 */
export function readStartupParams(
  location: Pick<Location, 'search' | 'href'>,
  storage: Storage,
): StartupParams {
  const given = parseStartupQuery(location.search);
  const hasQuery = Object.keys(given).length > 0;
  const isNewStartup = given.actor !== undefined;
  const stored = isNewStartup ? null : loadStored(storage);

  if (!hasQuery && !stored) {
    logger.error('startup', 'start-up query is missing', location.href);
    return defaultStartupParams();
  }
  if (!hasQuery) logger.debug('startup', 'start-up parameters restored from session storage');

  const params: StartupParams = { ...defaultStartupParams(), ...stored, ...given };
  const storedUrl = stored?.rawStartupUrl ?? '';
  params.rawStartupUrl = hasQuery && (isNewStartup || !storedUrl) ? location.href : storedUrl;
  saveStartupParams(params, storage);
  return params;
}
