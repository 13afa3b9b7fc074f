import type { FastifyServerOptions } from 'fastify';

/**
 * Secrets never reach a log line: a start-up URL's password, bearer and session tokens, presigned S3 URLs,
 * signed KVS WebSocket URLs and signed image URLs all carry them in the query string or in JSON. The values
 * are replaced by `[redacted]`; the rest of the line stays readable.
 */
export const REDACTED = '[redacted]';

/** Query or JSON keys whose values are secrets (matched case-insensitively, also as part of a longer key). */
const SECRET_KEY = String.raw`(?:password|passwd|pwd|token|secret|signature|credential|sig|session_?key|api_?key)`;
const QUERY_SECRET = new RegExp(
  String.raw`([?&;][A-Za-z0-9_.-]*${SECRET_KEY}[A-Za-z0-9_.-]*=)[^&#\s"'<>]*`,
  'gi',
);
const JSON_SECRET = new RegExp(
  String.raw`("[A-Za-z0-9_.-]*${SECRET_KEY}[A-Za-z0-9_.-]*"\s*:\s*)"(?:[^"\\]|\\.)*"`,
  'gi',
);
const BEARER = /\b(Bearer\s+)[A-Za-z0-9._~+/=-]+/g;
const SECRET_FIELD = new RegExp(`^[A-Za-z0-9_.-]*${SECRET_KEY}[A-Za-z0-9_.-]*$`, 'i');

/** The text with every secret value of a query string, a JSON object or an Authorization header replaced. */
export function redactText(text: string): string {
  if (text.length === 0) return text;
  return text
    .replace(QUERY_SECRET, `$1${REDACTED}`)
    .replace(JSON_SECRET, `$1"${REDACTED}"`)
    .replace(BEARER, `$1${REDACTED}`);
}

/**
 * A copy of a logged value with secrets redacted: strings through `redactText`, fields named like a secret
 * (password, session_token, secretAccessKey…) replaced whole. Plain objects, arrays and errors are copied;
 * other class instances are returned as they are.
 */
export function redactValue(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return redactText(value);
  if (value === null || typeof value !== 'object' || depth > 6) return value;
  if (Array.isArray(value)) return value.map((v) => redactValue(v, depth + 1));
  // Class instances (Fastify's request and reply) are left to their serializers, which see the originals.
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null && !(value instanceof Error)) return value;
  const src = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  const keys =
    value instanceof Error ? ['name', 'message', 'stack', 'code', ...Object.keys(src)] : Object.keys(src);
  for (const k of keys) {
    const v = src[k];
    if (v === undefined) continue;
    out[k] =
      SECRET_FIELD.test(k) && (typeof v === 'string' || typeof v === 'number')
        ? REDACTED
        : redactValue(v, depth + 1);
  }
  return out;
}

type LoggerOptions = Exclude<FastifyServerOptions['logger'], boolean | undefined>;

/**
 * Adds redaction to Fastify's logger options: the request serializer logs the URL redacted (Fastify's default
 * logs `req.url` as is), every logged object goes through `redactValue`, and every message through
 * `redactText`. `false` (no logging) is left alone.
 */
export function withRedaction(logger: FastifyServerOptions['logger']): FastifyServerOptions['logger'] {
  if (logger === false || logger === undefined) return logger;
  const base: LoggerOptions = logger === true ? {} : (logger as LoggerOptions);
  const opts = base as Record<string, unknown>;
  return {
    ...opts,
    serializers: {
      ...((opts.serializers as Record<string, unknown> | undefined) ?? {}),
      req: (req: {
        method?: string;
        url?: string;
        hostname?: string;
        ip?: string;
        socket?: { remotePort?: number };
      }) => ({
        method: req.method,
        url: redactText(req.url ?? ''),
        host: req.hostname,
        remoteAddress: req.ip,
        remotePort: req.socket?.remotePort,
      }),
    },
    formatters: {
      ...((opts.formatters as Record<string, unknown> | undefined) ?? {}),
      log: (obj: Record<string, unknown>) => redactValue(obj) as Record<string, unknown>,
    },
    hooks: {
      logMethod(this: unknown, args: unknown[], method: (...a: unknown[]) => void) {
        method.apply(
          this,
          args.map((a) => (typeof a === 'string' ? redactText(a) : a)),
        );
      },
    },
  } as LoggerOptions;
}
