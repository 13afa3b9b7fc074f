/** One extra allowed environment row (spec §5 table shape), e.g. the demo's Linux Chrome. */
export interface AllowedEnvironment {
  os: string;
  browser: string;
  minOs: number;
  minBrowser: number;
}

/** The SPA's runtime configuration, read from /config.json so one build serves many deployments. */
export interface RuntimeConfig {
  /** Base URL of the API: `${apiBaseUrl}/v1/login.php`. Default '/api'. */
  apiBaseUrl: string;
  /** The desktop proctoring application: its user-agent token and setup page; null when not required. */
  desktopApp: { userAgentToken: string; setupUrl: string } | null;
  extraAllowedEnvironments: AllowedEnvironment[];
  /** Spec §9 log level: 1 trace, 2 error, 3 debug. */
  logLevel: number;
  /** The deployment's time zone (IANA name): every time is shown in it. Default Asia/Tokyo. */
  timeZone: string;
  /**
   * Origins the start-up `password_url` and `target` may name (besides the SPA's own); others are ignored.
   * Absent from an older config.json: only the SPA's own origin.
   */
  allowedLinkOrigins: string[];
  /**
   * `relay`: live video goes only through the TURN servers GetIceServerConfig hands out (neither side learns
   * the other's network address); `all` (default): direct paths first, TURN when they fail.
   */
  iceTransportPolicy: 'all' | 'relay';
}

/** The zone times are shown in when /config.json names none (or one this browser does not know). */
export const DEFAULT_TIME_ZONE = 'Asia/Tokyo';

function knownZone(v: unknown): string {
  if (typeof v !== 'string' || v.trim() === '') return DEFAULT_TIME_ZONE;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: v });
    return v;
  } catch {
    return DEFAULT_TIME_ZONE;
  }
}

export const DEFAULT_RUNTIME_CONFIG: RuntimeConfig = {
  apiBaseUrl: '/api',
  desktopApp: null,
  extraAllowedEnvironments: [],
  logLevel: 2,
  timeZone: DEFAULT_TIME_ZONE,
  allowedLinkOrigins: [],
  iceTransportPolicy: 'all',
};

let current: RuntimeConfig = DEFAULT_RUNTIME_CONFIG;

function parse(raw: unknown): RuntimeConfig {
  if (!raw || typeof raw !== 'object') return DEFAULT_RUNTIME_CONFIG;
  const r = raw as Partial<RuntimeConfig>;
  const desktop =
    r.desktopApp && typeof r.desktopApp.userAgentToken === 'string' && r.desktopApp.userAgentToken
      ? { userAgentToken: r.desktopApp.userAgentToken, setupUrl: String(r.desktopApp.setupUrl ?? '') }
      : null;
  const extra = Array.isArray(r.extraAllowedEnvironments)
    ? r.extraAllowedEnvironments.filter(
        (e): e is AllowedEnvironment =>
          !!e &&
          typeof e.os === 'string' &&
          typeof e.browser === 'string' &&
          typeof e.minOs === 'number' &&
          typeof e.minBrowser === 'number',
      )
    : [];
  return {
    apiBaseUrl: typeof r.apiBaseUrl === 'string' && r.apiBaseUrl ? r.apiBaseUrl.replace(/\/+$/, '') : '/api',
    desktopApp: desktop,
    extraAllowedEnvironments: extra,
    logLevel: typeof r.logLevel === 'number' ? r.logLevel : 2,
    timeZone: knownZone(r.timeZone),
    allowedLinkOrigins: Array.isArray(r.allowedLinkOrigins)
      ? r.allowedLinkOrigins.filter((o): o is string => typeof o === 'string' && o !== '')
      : [],
    iceTransportPolicy: r.iceTransportPolicy === 'relay' ? 'relay' : 'all',
  };
}

/**
 * Loads /config.json at start-up. Null when the server cannot be reached (no network, the server or its proxy
 * down: a network error or a 5xx): the configuration is then unknown, and nothing may be decided on the defaults
 * (the start-up's browser check would turn away an environment the deployment allows). A server that answers
 * without a usable configuration (404, not JSON) has none: the defaults apply (said on the console).
 */
export async function loadRuntimeConfig(url = '/config.json'): Promise<RuntimeConfig | null> {
  let res: Response;
  try {
    res = await fetch(url, { cache: 'no-cache' });
  } catch (e) {
    console.error('Could not reach the server for /config.json.', e);
    return null;
  }
  if (res.status >= 500) {
    console.error(`Could not reach the server for /config.json (HTTP ${res.status}).`);
    return null;
  }
  try {
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    current = parse(await res.json());
  } catch (e) {
    console.error('No usable /config.json; using defaults.', e);
    current = DEFAULT_RUNTIME_CONFIG;
  }
  return current;
}

export function getRuntimeConfig(): RuntimeConfig {
  return current;
}

/** For tests. */
export function setRuntimeConfig(cfg: Partial<RuntimeConfig>): void {
  current = parse({ ...DEFAULT_RUNTIME_CONFIG, ...cfg });
}
