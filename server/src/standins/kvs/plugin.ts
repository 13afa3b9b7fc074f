import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import '@fastify/websocket';
import { KvsChannels } from './channels';
import { addPreflight, useAwsConventions } from './http-common';
import { registerHttpRoutes, registerWebSocketRoutes } from './routes';
import { loadKvsSettings } from './settings';
import { registerTestHooks } from './test-hooks';

declare module 'fastify' {
  interface FastifyInstance {
    /** The local KVS signaling stand-in's channel registry; null when KVS_ENDPOINT points at AWS. */
    kvs: KvsChannels | null;
  }
}

/** Options, for tests: the environment to read instead of `process.env`. */
export interface KvsStandinOptions {
  env?: NodeJS.ProcessEnv;
}

/** The configured AWS KVS endpoint: from `opts.env` in tests, else the server configuration, else the environment. */
function awsEndpoint(app: FastifyInstance, opts: KvsStandinOptions): string | undefined {
  if (opts.env) return opts.env.KVS_ENDPOINT || undefined;
  const aws = app.hasDecorator('config') ? (app.config as { aws?: { kvsEndpoint?: string } }).aws : undefined;
  return aws ? aws.kvsEndpoint : process.env.KVS_ENDPOINT || undefined;
}

/**
 * The local Amazon KVS WebRTC signaling stand-in (media-stack.md §7.1), so the real browser SDKs run their
 * real code paths: control plane under /kvs, HTTPS data plane under /kvs-data, signaling WebSockets under
 * /kvs-ws and test hooks under /__kvs. Off (nothing mounted, `app.kvs` null) when KVS_ENDPOINT is set.
 * Browser credentials may do what their role's STS session policy allows (aws/session-policy.ts); the server
 * key pair (KVS_LOCAL_ACCESS_KEY_ID) also CreateSignalingChannel, DeleteSignalingChannel and
 * ListSignalingChannels, so AWS-mode code runs against it with the real SDK.
 * Needs `@fastify/websocket` registered before it and `app.localCredentials` to check credentials.
 */
async function kvsStandin(app: FastifyInstance, opts: KvsStandinOptions): Promise<void> {
  const env = opts.env ?? process.env;
  if (awsEndpoint(app, opts)) {
    app.decorate('kvs', null);
    return;
  }
  const kvs = new KvsChannels(loadKvsSettings(env));
  app.decorate('kvs', kvs);
  app.addHook('onClose', async () => kvs.close());
  // A revoked browser credential (its matching ended) loses its open signaling sockets at once too.
  app.localCredentials?.onRevoke((accessKeyId) => kvs.hub.closeCredential(accessKeyId));

  // Encapsulated so the catch-all body parser and the AWS-shaped error handler stay off the /api routes.
  await app.register(async (scope) => {
    useAwsConventions(scope);
    for (const prefix of ['/kvs', '/kvs-data', '/kvs-ws']) addPreflight(scope, prefix);
    registerHttpRoutes(scope, kvs);
    registerWebSocketRoutes(scope, kvs);
    if (app.hasDecorator('config') && app.config.testHooks) registerTestHooks(scope, kvs);
  });
}

export default fp(kvsStandin, { name: 'kvs-standin', fastify: '5.x', dependencies: ['@fastify/websocket'] });
