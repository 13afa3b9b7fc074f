import Fastify, {
  LogController,
  type FastifyReply,
  type FastifyRequest,
  type FastifyServerOptions,
} from 'fastify';
import formbody from '@fastify/formbody';
import multipart from '@fastify/multipart';
import websocket from '@fastify/websocket';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { ServerConfig } from './config';
import type { Db } from './db/db';
import type { App } from './lib/app-types';
import { envelopePlugin } from './plugins/envelope';
import { jsonBodyPlugin } from './plugins/json-body';
import { authPlugin } from './plugins/auth';
import { securityHeadersPlugin } from './plugins/security-headers';
import { spaPlugin } from './plugins/spa';
import { openapiPlugin } from './plugins/openapi';
import { operationsPlugin, requestId } from './plugins/operations';
import { loadApiRoutes } from './routes/loader';
import servertimeRootRoutes from './routes/servertime-root';
import shortUrlRoutes from './routes/shorturl';
import demoExamRoutes from './routes/demo-exam';
import { loadStandins } from './standins/loader';
import { decorateCloudAccess } from './lib/aws/aws-mode';
import { applyCheatingLevelThresholds } from './lib/cheating-level';
import { withRedaction } from './lib/log-redact';

export interface BuildOptions {
  config: ServerConfig;
  db: Db;
  logger?: FastifyServerOptions['logger'];
}

/**
 * One access line per request, when it is answered, instead of Fastify's two (incoming, completed): at an exam's
 * poll rates the log is written thousands of times a second, and the incoming line carried nothing the completed
 * one cannot. Fastify's other lines (errors, not found, shutting down) are kept.
 */
class AccessLogController extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    if (this.isLogDisabled(request)) return;
    if (error)
      reply.log.error(
        { req: request, res: reply, err: error, responseTime: reply.elapsedTime },
        'request errored',
      );
    else reply.log.info({ req: request, res: reply, responseTime: reply.elapsedTime }, 'request completed');
  }
}

/**
 * Builds the reference server. Load order (fastify/demo): external plugins, then app plugins, then routes,
 * then the cloud stand-ins, then the SPA (whose catch-all must come last).
 */
export async function buildApp({ config, db, logger }: BuildOptions): Promise<App> {
  const app = Fastify({
    // Secrets (start-up passwords, tokens, signed URLs) are redacted from every log line.
    logger: withRedaction(logger ?? { level: config.logLevel }),
    trustProxy: config.trustProxy,
    // Every log line of a request carries its id, and the response says it (X-Request-Id).
    genReqId: requestId,
    logController: new AccessLogController(),
    bodyLimit: 1024 * 1024,
    ajv: {
      customOptions: { coerceTypes: 'array', removeAdditional: true, useDefaults: true, allErrors: false },
    },
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.decorate('config', config);
  app.decorate('db', db);
  // The organisation's cheating-level thresholds; every sitting is recomputed when they changed.
  app.addHook('onReady', async () => {
    await applyCheatingLevelThresholds(db, config.cheatingLevel);
  });
  // Local stand-ins for KVS and S3 and their credential issuer, or, for a service pointed at AWS, STS
  // credentials (and KVS channel management); refuses AWS mode without AWS_ROLE_ARN.
  decorateCloudAccess(app, config);

  await app.register(formbody, { bodyLimit: 1024 * 1024 });
  await app.register(multipart, { limits: { fileSize: 10 * 1024 * 1024, files: 2, fields: 20 } });
  await app.register(websocket, { options: { maxPayload: 64 * 1024 } });

  await app.register(securityHeadersPlugin);
  await app.register(envelopePlugin);
  await app.register(jsonBodyPlugin);
  await app.register(authPlugin);
  await app.register(openapiPlugin); // before the routes: it sees them as they are added
  await app.register(operationsPlugin); // /healthz, /readyz, /metrics

  await loadApiRoutes(app);
  await app.register(servertimeRootRoutes); // GET /api/servertime (spec §7: the one call outside /api/v1)
  await app.register(shortUrlRoutes); // GET|HEAD /s/:url_key → start-up URL
  await app.register(demoExamRoutes); // the demo exam behind exam_url
  await loadStandins(app);
  await app.register(spaPlugin);
  return app;
}
