import { Type } from 'typebox';
import { Envelope } from '../../../../../../contract/common';
import {
  DEVICE_LOG_MAX_BYTES,
  DeviceLoggingBody,
  LOG_DETAILS_MAX,
  LogReceiveBody,
} from '../../../../../../contract/logs';
import { ApiError } from '../../../../lib/api-error';
import type { App } from '../../../../lib/app-types';
import { redactText } from '../../../../lib/log-redact';
import { enforceLimit, perIpLimit } from '../../../../lib/db-rate-limit';
import { insertClientLog, insertDeviceLog, type LogSender } from '../../../../lib/logs/client-logs';
import type { FastifyRequest } from 'fastify';

// Both endpoints are open (errors happen before login too), so each address gets a ceiling to keep the
// logs table from being flooded; a well-behaved client sends far fewer. Entries without a session (nobody
// is accountable for them) get a lower one per address, and each session its own.
const LOGS_PER_IP_PER_MINUTE = 600;
const ANONYMOUS_LOGS_PER_IP_PER_MINUTE = 60;
const LOGS_PER_SESSION_PER_MINUTE = 120;

const LEVELS = new Set(['trace', 'debug', 'info', 'warn', 'error']);

/** The session's user (when the entry came with a token) and the address. */
function senderOf(request: FastifyRequest): LogSender {
  const auth = request.auth;
  return {
    userId: auth?.userId ?? null,
    loginId: auth?.loginId ?? null,
    actor: auth?.actor ?? null,
    sessionId: auth?.sessionId ?? null,
    ip: request.ip,
  };
}

/** log_receive.php and device_logging.php (spec §7). */
export default async function logsRoutes(app: App): Promise<void> {
  // Counted in the database, so the limits hold across every server instance.
  const perSession = {
    scope: 'logs_session',
    max: LOGS_PER_SESSION_PER_MINUTE,
    windowSeconds: 60,
    message: 'Too many log entries from this session.',
  };
  const anonymousPerIp = {
    scope: 'logs_anonymous_ip',
    max: ANONYMOUS_LOGS_PER_IP_PER_MINUTE,
    windowSeconds: 60,
    message: 'Too many log entries from this address.',
  };
  /** The client-reported entry limits (the per-address ceiling is the route's onRequest hook). */
  const admit = (request: FastifyRequest): Promise<void> =>
    request.auth
      ? enforceLimit(app.db, perSession, String(request.auth.sessionId))
      : enforceLimit(app.db, anonymousPerIp, request.ip);
  const perIp = perIpLimit(app, {
    scope: 'logs_ip',
    max: LOGS_PER_IP_PER_MINUTE,
    windowSeconds: 60,
    message: 'Too many log entries from this address.',
  });

  app.post(
    '/log_receive.php',
    {
      onRequest: perIp,
      config: { access: 'public' },
      schema: { body: LogReceiveBody, response: { 200: Envelope(Type.Null()) } },
    },
    async (request, reply) => {
      await admit(request);
      // PostgreSQL text cannot hold NUL; a log line is kept rather than refused for containing one. Secrets
      // (a start-up URL's password, tokens, signed URLs) in the reported location or details are redacted.
      const clean = (v: string | undefined) => redactText((v ?? '').replaceAll('\u0000', ''));
      const b = {
        type: clean(request.body.type),
        path: clean(request.body.path),
        module: clean(request.body.module),
        location: clean(request.body.location),
        details: clean(request.body.details),
        timestamp: request.body.timestamp === undefined ? null : clean(request.body.timestamp),
        tag1: clean(request.body.tag1),
      };
      const type = b.type.trim();
      await insertClientLog(
        app.db,
        {
          level: LEVELS.has(type.toLowerCase()) ? type.toLowerCase() : 'info',
          type,
          path: b.path,
          module: b.module,
          location: b.location,
          // spec §9: logged detail length 1024.
          details: b.details.slice(0, LOG_DETAILS_MAX),
          tag1: b.tag1,
          clientTs: b.timestamp,
        },
        senderOf(request),
      );
      return reply.ok(null);
    },
  );

  app.post(
    '/device_logging.php',
    {
      // The payload is stored as JSON text of at most DEVICE_LOG_MAX_BYTES; the body limit leaves room for
      // the wrapper and escaping, and the stored size is checked below.
      bodyLimit: DEVICE_LOG_MAX_BYTES * 2,
      onRequest: perIp,
      config: { access: 'public' },
      schema: { body: DeviceLoggingBody, response: { 200: Envelope(Type.Null()) } },
    },
    async (request, reply) => {
      await admit(request);
      const payload = request.body.payload ?? null;
      const text = redactText(JSON.stringify(payload));
      if (Buffer.byteLength(text, 'utf8') > DEVICE_LOG_MAX_BYTES) {
        throw new ApiError(
          413,
          'payload_too_large',
          `The device log payload exceeds ${DEVICE_LOG_MAX_BYTES} bytes.`,
        );
      }
      await insertDeviceLog(app.db, text, senderOf(request));
      return reply.ok(null);
    },
  );
}
