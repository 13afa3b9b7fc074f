import { randomUUID, timingSafeEqual, createHash } from 'node:crypto';
import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { pendingMigrations } from '../db/migrate';
import { createObjectStorage } from '../lib/object-storage';
import { recordingSettings } from '../lib/recording/settings';

/** Settings of the operations endpoints, read from the environment at start-up. */
export interface OperationsSettings {
  /** METRICS_TOKEN: when set, /metrics wants `Authorization: Bearer <token>`. */
  metricsToken: string | undefined;
  /** READY_CHECK_TIMEOUT_MS [3000]: a readiness check slower than this counts as failed. */
  readyTimeoutMs: number;
}

export function operationsSettings(env: NodeJS.ProcessEnv = process.env): OperationsSettings {
  const t = Number(env.READY_CHECK_TIMEOUT_MS || 3000);
  if (!Number.isInteger(t) || t < 100 || t > 60_000)
    throw new Error(`Invalid READY_CHECK_TIMEOUT_MS: ${env.READY_CHECK_TIMEOUT_MS} (100…60000)`);
  return { metricsToken: env.METRICS_TOKEN || undefined, readyTimeoutMs: t };
}

/** A request id from the proxy (X-Request-Id) when it looks like one, else a new UUID. */
export function requestId(req: { headers: Record<string, string | string[] | undefined> }): string {
  const h = req.headers['x-request-id'];
  return typeof h === 'string' && /^[A-Za-z0-9._:-]{8,64}$/.test(h) ? h : randomUUID();
}

// Process metrics (CPU, memory, event-loop lag) are per process, not per app: registered once.
let processRegistry: Registry | null = null;
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

function sameToken(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

async function within<T>(ms: number, what: string, p: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      p,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Operations endpoints, outside the PHP contract: `GET /healthz` (the process answers), `GET /readyz` (the
 * database, its migrations, object storage and signaling answer; 503 naming the failing part otherwise) and
 * `GET /metrics` (Prometheus text format). Every response carries `X-Request-Id`, the id its log lines have.
 * The business gauges are counted from the database when Prometheus scrapes, so no hot path pays for them.
 */
export const operationsPlugin = fp(async (app: FastifyInstance) => {
  const settings = operationsSettings();
  const registry = new Registry();

  // Callback-style hooks: no extra promise per request on the hot paths.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('X-Request-Id', request.id);
    done();
  });

  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time to answer an HTTP request, by method, route pattern and status code.',
    labelNames: ['method', 'route', 'status_code'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  app.addHook('onResponse', (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    const route = request.routeOptions.url ?? 'unmatched';
    if (route !== '/metrics') {
      duration.observe(
        { method: request.method, route, status_code: String(reply.statusCode) },
        reply.elapsedTime / 1000,
      );
    }
    done();
  });

  const gauge = (
    name: string,
    help: string,
    labelNames: string[],
    read: () => Promise<{ labels?: Record<string, string>; value: number }[]>,
  ) =>
    new Gauge({
      name,
      help,
      labelNames,
      registers: [registry],
      async collect() {
        this.reset();
        for (const { labels, value } of await read()) {
          if (labels) this.set(labels, value);
          else this.set(value);
        }
      },
    });
  const q = async <T>(sql: string) => (await app.db.query<T>(sql)).rows;

  gauge(
    'proctor_active_sittings',
    'Examinee sittings logged in and not finished (status 1-6) with a live session.',
    [],
    async () => {
      const [r] = await q<{ n: number }>(
        `SELECT count(*)::int AS n FROM tests t
          WHERE t.status BETWEEN 1 AND 6
            AND EXISTS (SELECT 1 FROM sessions s WHERE s.user_id = t.user_id AND s.revoked_at IS NULL AND s.expires_at > now())`,
      );
      return [{ value: r?.n ?? 0 }];
    },
  );
  const MATCHING = { '-1': 'invalid', '0': 'none', '1': 'waiting', '2': 'connected' } as Record<
    string,
    string
  >;
  gauge('proctor_matchings', 'Current matchings by status.', ['status'], async () => {
    const rows = await q<{ s: number; n: number }>(
      `SELECT matching_status AS s, count(*)::int AS n FROM matchings WHERE deleted_at IS NULL GROUP BY 1`,
    );
    const out = Object.values(MATCHING).map((status) => ({ labels: { status }, value: 0 }));
    for (const r of rows) {
      const o = out.find((x) => x.labels.status === MATCHING[String(r.s)]);
      if (o) o.value = r.n;
    }
    return out;
  });
  gauge(
    'proctor_upload_parts_last_hour',
    'Recording parts stored in the last hour (uploads in progress show here).',
    [],
    async () => [
      {
        value:
          (
            await q<{ n: number }>(
              `SELECT count(*)::int AS n FROM record_parts WHERE created_at > now() - interval '1 hour'`,
            )
          )[0]?.n ?? 0,
      },
    ],
  );
  gauge(
    'proctor_recording_failures_last_day',
    'Recordings that failed in the last 24 hours: conversion errors (status 08) and uploads left open over 24 h.',
    ['kind'],
    async () => {
      const [r] = await q<{ conversion: number; upload: number }>(
        `SELECT count(*) FILTER (WHERE movie_status = '08' AND updated_at > now() - interval '1 day')::int AS conversion,
                count(*) FILTER (WHERE movie_status = '00' AND upload_id IS NOT NULL AND stop_at IS NULL
                                  AND start_at BETWEEN now() - interval '2 days' AND now() - interval '1 day')::int AS upload
           FROM records`,
      );
      return [
        { labels: { kind: 'conversion' }, value: r?.conversion ?? 0 },
        { labels: { kind: 'upload_abandoned' }, value: r?.upload ?? 0 },
      ];
    },
  );
  gauge(
    'proctor_job_queue_depth',
    'Background jobs waiting or running, by queue and state.',
    ['queue', 'state'],
    async () => {
      const [r] = await q<{ conv: number; aq: number; ar: number }>(
        `SELECT (SELECT count(*)::int FROM records WHERE movie_status = '01') AS conv,
              (SELECT count(*)::int FROM analysis_jobs WHERE status = 'queued') AS aq,
              (SELECT count(*)::int FROM analysis_jobs WHERE status = 'running') AS ar`,
      );
      return [
        { labels: { queue: 'recording_conversion', state: 'pending' }, value: r?.conv ?? 0 },
        { labels: { queue: 'ai_analysis', state: 'queued' }, value: r?.aq ?? 0 },
        { labels: { queue: 'ai_analysis', state: 'running' }, value: r?.ar ?? 0 },
      ];
    },
  );
  gauge(
    'proctor_ai_job_seconds',
    'AI analysis jobs finished in the last hour: run time (started to finished) and wait (queued to started), median and 95th percentile.',
    ['phase', 'quantile'],
    async () => {
      const [r] = await q<Record<string, number | null>>(
        `SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM finished_at - started_at)) AS run50,
                percentile_cont(0.95) WITHIN GROUP (ORDER BY extract(epoch FROM finished_at - started_at)) AS run95,
                percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM started_at - created_at)) AS wait50,
                percentile_cont(0.95) WITHIN GROUP (ORDER BY extract(epoch FROM started_at - created_at)) AS wait95
           FROM analysis_jobs
          WHERE finished_at > now() - interval '1 hour' AND started_at IS NOT NULL AND status = 'done'`,
      );
      const v = (k: string) => Number(r?.[k] ?? 0);
      return [
        { labels: { phase: 'run', quantile: '0.5' }, value: v('run50') },
        { labels: { phase: 'run', quantile: '0.95' }, value: v('run95') },
        { labels: { phase: 'wait', quantile: '0.5' }, value: v('wait50') },
        { labels: { phase: 'wait', quantile: '0.95' }, value: v('wait95') },
      ];
    },
  );

  app.get('/healthz', async (_req, reply) => {
    reply.header('Cache-Control', 'no-store');
    return { status: 'ok', uptime_seconds: Math.round(process.uptime()) };
  });

  const storage = createObjectStorage({
    bucket: recordingSettings().bucket,
    local: () => (app.hasDecorator('s3local') ? app.s3local : null),
  });
  const checks: Record<string, () => Promise<string | null>> = {
    database: async () => {
      await app.db.query('SELECT 1');
      return null;
    },
    migrations: async () => {
      const pending = await pendingMigrations(app.db);
      return pending.length ? `not applied: ${pending.join(', ')}` : null;
    },
    object_storage: async () => {
      // A HeadObject of a key that does not exist: answered (null) means the bucket is reachable and ours.
      // The in-process stand-in is asked directly (its files), S3 or a remote store over the network.
      const local = app.hasDecorator('s3local') ? app.s3local : null;
      if (local) await local.headObject(storage.bucket, 'readyz/probe');
      else await storage.headObject({ bucket: storage.bucket, key: 'readyz/probe' });
      return null;
    },
    signaling: async () => {
      if (app.hasDecorator('kvs') && app.kvs) return null; // the in-process stand-in
      if (app.kvsControl) {
        await app.kvsControl.listChannels('readyz-probe-');
        return null;
      }
      return 'no signaling: neither the local stand-in nor KVS_ENDPOINT is configured';
    },
  };

  app.get('/readyz', async (_req, reply) => {
    const results = await Promise.all(
      Object.entries(checks).map(async ([name, check]) => {
        try {
          const problem = await within(settings.readyTimeoutMs, name, check());
          return [name, problem ? { ok: false, error: problem } : { ok: true }] as const;
        } catch (e) {
          return [name, { ok: false, error: (e as Error).message.slice(0, 300) }] as const;
        }
      }),
    );
    const failing = results.filter(([, r]) => !r.ok).map(([n]) => n);
    reply.header('Cache-Control', 'no-store');
    if (failing.length) app.log.warn({ failing }, 'readiness check failed');
    return reply.code(failing.length ? 503 : 200).send({
      status: failing.length ? 'unavailable' : 'ready',
      failing,
      checks: Object.fromEntries(results),
    });
  });

  app.get('/metrics', async (request, reply) => {
    if (settings.metricsToken) {
      const m = /^Bearer (.+)$/.exec(request.headers.authorization ?? '');
      if (!m?.[1] || !sameToken(m[1], settings.metricsToken)) {
        return reply
          .code(401)
          .header('WWW-Authenticate', 'Bearer realm="metrics"')
          .send({ status: 401, message: 'METRICS_TOKEN required.', result: null, code: 'unauthorized' });
      }
    }
    const merged = Registry.merge([processMetrics(), registry]);
    reply.header('Cache-Control', 'no-store').type(merged.contentType);
    return merged.metrics();
  });
});
