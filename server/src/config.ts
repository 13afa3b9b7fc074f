import path from 'node:path';
import {
  DEFAULT_CHEATING_LEVEL_THRESHOLDS,
  parseThresholds,
  type CheatingLevelThresholds,
} from './lib/cheating-level';
import { MANAGEMENT_TIME_ZONE } from './lib/management-time';
import { parseKey32 } from './lib/secrets';

/** Extra allowed environment rows for the SPA's browser/OS check (spec §5 table format). */
export interface AllowedEnvironment {
  os: string;
  browser: string;
  minOs: number;
  minBrowser: number;
}

export interface ServerConfig {
  host: string;
  port: number;
  /** Origin the browser uses to reach this server, e.g. http://127.0.0.1:8080 (for printed URLs and stand-in endpoints). */
  publicOrigin: string;
  /**
   * Every origin browsers use to reach this deployment (PUBLIC_ORIGINS, comma-separated; default
   * PUBLIC_ORIGIN). An IP access limit bound to a server name applies when that name is one of these hosts,
   * whatever Host or X-Forwarded-Host a request carries.
   */
  publicOrigins: string[];
  dataDir: string;
  databaseUrl: string | undefined;
  staticDir: string;
  /** Trusted proxy hops/CIDRs (Fastify trustProxy); false = use the socket address. */
  trustProxy: boolean | string;
  tokenTtlSeconds: number;
  managerIdleSeconds: number;
  /**
   * SESSION_CACHE_SECONDS: how long an instance may answer from a session it looked up before, without asking
   * the database (0 = always ask). Revocations reach every instance at once through the database (lib/auth-cache.ts).
   */
  sessionCacheSeconds: number;
  login: { maxFailures: number; windowSeconds: number; lockSeconds: number; perIpPerMinute: number };
  demo: boolean;
  /** Short URL whose parameters a tester's sitting gets when the login names none (demo: demo-tester). */
  defaultTesterUrlKey: string;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** Runtime configuration served at /config.json for the SPA. */
  spa: {
    apiBaseUrl: string;
    desktopApp: { userAgentToken: string; setupUrl: string } | null;
    extraAllowedEnvironments: AllowedEnvironment[];
    logLevel: number;
    /** The deployment's time zone (TIME_ZONE): the SPA shows every time in it. */
    timeZone: string;
    /**
     * Origins a start-up URL may point the login page's "forgot password" link and the header's target badge
     * at (SPA_ALLOWED_LINK_ORIGINS, comma-separated; default the public origins). Others are ignored and
     * logged by the SPA, so a crafted start-up URL cannot plant a phishing link or a fake server name.
     */
    allowedLinkOrigins: string[];
    /** ICE_TRANSPORT_POLICY: `relay` sends live video only through TURN (default `all`). */
    iceTransportPolicy: 'all' | 'relay';
  };
  /** Thresholds of the cheating level (CHEATING_LEVEL_SCORE_THRESHOLDS, CHEATING_LEVEL_AI_THRESHOLDS). */
  cheatingLevel: CheatingLevelThresholds;
  /** Test-only hooks (/__kvs, /__s3, clock); never on in production. */
  testHooks: boolean;
  /** AWS mode: set endpoints turn the matching stand-in off and send credentials through STS. */
  aws: AwsConfig;
  /**
   * CREDENTIALS_CACHE_KEY (32 bytes, base64 or hex): seals the signaling credentials the instances share in the
   * database (lib/signaling-credentials.ts). Every instance on one database needs the same; unset, each process
   * makes one of its own, so an instance can reuse only the credentials it issued itself.
   */
  credentialsCacheKey: Buffer | null;
}

/** Where the server reaches AWS (README "Pointing at AWS"); no endpoint = the local stand-in. */
export interface AwsConfig {
  /** KVS control-plane endpoint (KVS_ENDPOINT); set = signaling channels on AWS. */
  kvsEndpoint: string | undefined;
  /** S3 endpoint (S3_ENDPOINT); set = recordings on AWS. */
  s3Endpoint: string | undefined;
  /**
   * KVS_PUBLIC_ENDPOINT: the KVS endpoint browsers use when it is not AWS's own (the stand-ins service,
   * `<origin>/kvs`); handed out with the signaling credentials. Unset: browsers use the AWS endpoints.
   */
  kvsPublicEndpoint: string | undefined;
  /** KVS region (KVS_REGION, default ap-northeast-1). */
  kvsRegion: string;
  /** The role browser credentials are assumed from (AWS_ROLE_ARN); required in AWS mode. */
  roleArn: string | undefined;
  /** STS region (STS_REGION, default KVS_REGION) and endpoint override (STS_ENDPOINT). */
  stsRegion: string;
  stsEndpoint: string | undefined;
}

function int(v: string | undefined, d: number): number {
  if (v === undefined || v === '') return d;
  const n = Number(v);
  if (!Number.isFinite(n)) throw new Error(`Invalid number in environment: ${v}`);
  return n;
}

function iceTransportPolicy(v: string | undefined): 'all' | 'relay' {
  if (v === undefined || v === '' || v === 'all') return 'all';
  if (v === 'relay') return 'relay';
  throw new Error(`ICE_TRANSPORT_POLICY must be all or relay, not: ${v}`);
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): ServerConfig {
  const host = env.HOST ?? '127.0.0.1';
  const port = int(env.PORT, 8080);
  const demo = (env.DEMO ?? '1') !== '0';
  const desktopToken = env.DESKTOP_APP_UA_TOKEN ?? '';
  let extra: AllowedEnvironment[] = [];
  if (env.EXTRA_ALLOWED_ENVIRONMENTS) {
    extra = JSON.parse(env.EXTRA_ALLOWED_ENVIRONMENTS) as AllowedEnvironment[];
  } else if (demo) {
    // ARCHITECTURE.md: the demo adds Linux desktop Chrome/Chromium >= 80.
    extra = [
      { os: 'Linux', browser: 'Chrome', minOs: 0, minBrowser: 80 },
      { os: 'Linux', browser: 'Chromium', minOs: 0, minBrowser: 80 },
    ];
  }
  return {
    host,
    port,
    publicOrigin: env.PUBLIC_ORIGIN ?? `http://${host}:${port}`,
    publicOrigins: (env.PUBLIC_ORIGINS ?? env.PUBLIC_ORIGIN ?? `http://${host}:${port}`)
      .split(',')
      .map((o) => o.trim())
      .filter(Boolean),
    dataDir: path.resolve(env.DATA_DIR ?? './data'),
    databaseUrl: env.DATABASE_URL || undefined,
    staticDir: path.resolve(env.STATIC_DIR ?? './dist'),
    trustProxy: env.TRUST_PROXY ? (env.TRUST_PROXY === 'true' ? true : env.TRUST_PROXY) : false,
    tokenTtlSeconds: int(env.TOKEN_TTL_SECONDS, 8 * 3600),
    managerIdleSeconds: int(env.MANAGER_IDLE_SECONDS, 30 * 60),
    sessionCacheSeconds: int(env.SESSION_CACHE_SECONDS, 60),
    login: {
      maxFailures: int(env.LOGIN_MAX_FAILURES, 10),
      windowSeconds: int(env.LOGIN_WINDOW_SECONDS, 15 * 60),
      lockSeconds: int(env.LOGIN_LOCK_SECONDS, 15 * 60),
      perIpPerMinute: int(env.LOGIN_PER_IP_PER_MINUTE, 60),
    },
    demo,
    defaultTesterUrlKey: env.DEFAULT_TESTER_URL_KEY ?? (demo ? 'demo-tester' : ''),
    logLevel: (env.LOG_LEVEL as ServerConfig['logLevel']) ?? 'info',
    spa: {
      apiBaseUrl: env.SPA_API_BASE_URL ?? '/api',
      desktopApp: desktopToken
        ? { userAgentToken: desktopToken, setupUrl: env.DESKTOP_APP_SETUP_URL ?? '' }
        : null,
      extraAllowedEnvironments: extra,
      logLevel: int(env.SPA_LOG_LEVEL, 2),
      timeZone: MANAGEMENT_TIME_ZONE,
      allowedLinkOrigins: (
        env.SPA_ALLOWED_LINK_ORIGINS ??
        env.PUBLIC_ORIGINS ??
        env.PUBLIC_ORIGIN ??
        `http://${host}:${port}`
      )
        .split(',')
        .map((o) => o.trim())
        .filter(Boolean),
      iceTransportPolicy: iceTransportPolicy(env.ICE_TRANSPORT_POLICY),
    },
    cheatingLevel: {
      score: parseThresholds(
        env.CHEATING_LEVEL_SCORE_THRESHOLDS,
        'CHEATING_LEVEL_SCORE_THRESHOLDS',
        DEFAULT_CHEATING_LEVEL_THRESHOLDS.score,
      ),
      ai: parseThresholds(
        env.CHEATING_LEVEL_AI_THRESHOLDS,
        'CHEATING_LEVEL_AI_THRESHOLDS',
        DEFAULT_CHEATING_LEVEL_THRESHOLDS.ai,
      ),
    },
    testHooks: env.TEST_HOOKS === '1',
    credentialsCacheKey: env.CREDENTIALS_CACHE_KEY
      ? parseKey32('CREDENTIALS_CACHE_KEY', env.CREDENTIALS_CACHE_KEY)
      : null,
    aws: {
      kvsEndpoint: env.KVS_ENDPOINT || undefined,
      s3Endpoint: env.S3_ENDPOINT || undefined,
      kvsPublicEndpoint: env.KVS_PUBLIC_ENDPOINT?.replace(/\/$/, '') || undefined,
      kvsRegion: env.KVS_REGION || 'ap-northeast-1',
      roleArn: env.AWS_ROLE_ARN || undefined,
      stsRegion: env.STS_REGION || env.KVS_REGION || 'ap-northeast-1',
      stsEndpoint: env.STS_ENDPOINT || undefined,
    },
  };
}
