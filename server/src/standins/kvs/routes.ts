import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { IncomingMessage } from 'node:http';
import {
  authenticateHttp,
  authenticateWebSocket,
  authorizeChannel,
  type AuthenticatedCredential,
} from './auth';
import { channelNameFromArn, type KvsChannel, type KvsChannels } from './channels';
import { KvsError, invalidArgument } from './errors';
import { CLIENT_ID_PATTERN, type KvsRole } from './signaling-hub';

type Body = Record<string, unknown>;

function optionalString(body: Body, key: string): string | undefined {
  const v = body[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string' || v === '') throw invalidArgument(`${key} must be a non-empty string.`);
  return v;
}

function arnToName(arn: string): string {
  const name = channelNameFromArn(arn);
  if (name === null) throw invalidArgument(`Invalid ChannelARN: ${arn.slice(0, 200)}`);
  return name;
}

function notFound(what: string): KvsError {
  return new KvsError(
    'ResourceNotFoundException',
    `The requested channel is not found or not active: ${what.slice(0, 200)}`,
  );
}

/**
 * Resolves the `ChannelName`/`ChannelARN` pair of a control-plane body, authorising first and answering 404
 * only to callers allowed to know (AWS authorises before looking the resource up).
 */
function resolveChannel(
  kvs: KvsChannels,
  cred: AuthenticatedCredential,
  body: Body,
  arnOnly: boolean,
): KvsChannel {
  const arn = optionalString(body, 'ChannelARN');
  const name = arnOnly ? undefined : optionalString(body, 'ChannelName');
  if (arn === undefined && name === undefined)
    throw invalidArgument(arnOnly ? 'ChannelARN is required.' : 'ChannelName or ChannelARN is required.');
  if (arn !== undefined && name !== undefined)
    throw invalidArgument('Give either ChannelName or ChannelARN, not both.');
  authorizeChannel(cred, arn !== undefined ? arnToName(arn) : (name ?? ''));
  const ch = kvs.find({ arn, name });
  if (!ch) throw notFound(arn ?? name ?? '');
  return ch;
}

function bodyOf(request: FastifyRequest): Body {
  return (request.body ?? {}) as Body;
}

/** POST /kvs/* control plane and POST /kvs-data/* HTTPS data plane (media-stack.md §2, §7.1). */
export function registerHttpRoutes(scope: FastifyInstance, kvs: KvsChannels): void {
  const auth = (request: FastifyRequest): AuthenticatedCredential =>
    authenticateHttp(scope.localCredentials ?? null, kvs.region, request.headers);

  scope.post('/kvs/describeSignalingChannel', async (request) => {
    const cred = auth(request);
    const ch = resolveChannel(kvs, cred, bodyOf(request), false);
    const ttl = Math.min(120, Math.max(5, Math.round(kvs.hub.timeouts.messageTtlMs / 1000)));
    return {
      ChannelInfo: {
        ChannelName: ch.channelName,
        ChannelARN: ch.channelArn,
        ChannelType: 'SINGLE_MASTER',
        ChannelStatus: 'ACTIVE',
        CreationTime: ch.creationTime.getTime() / 1000, // §2: epoch seconds as a JSON number
        SingleMasterConfiguration: { MessageTtlSeconds: ttl },
        Version: 'v1',
      },
    };
  });

  scope.post('/kvs/getSignalingChannelEndpoint', async (request) => {
    const cred = auth(request);
    const body = bodyOf(request);
    resolveChannel(kvs, cred, body, true);
    const cfg = body.SingleMasterChannelEndpointConfiguration ?? {};
    if (typeof cfg !== 'object' || cfg === null)
      throw invalidArgument('Invalid SingleMasterChannelEndpointConfiguration.');
    const { Protocols = ['WSS', 'HTTPS'], Role = 'MASTER' } = cfg as { Protocols?: unknown; Role?: unknown };
    if (Role !== 'MASTER' && Role !== 'VIEWER') throw invalidArgument('Role must be MASTER or VIEWER.');
    if (
      !Array.isArray(Protocols) ||
      Protocols.length === 0 ||
      Protocols.some((p) => p !== 'WSS' && p !== 'HTTPS')
    ) {
      throw invalidArgument(
        'Protocols must be a non-empty list of WSS and HTTPS (WEBRTC needs media storage, which is off).',
      );
    }
    const secure = request.protocol === 'https';
    const host = request.host;
    const endpoints: Record<string, string> = {
      WSS: `${secure ? 'wss' : 'ws'}://${host}/kvs-ws/${Role === 'MASTER' ? 'master' : 'viewer'}`,
      HTTPS: `${secure ? 'https' : 'http'}://${host}/kvs-data`,
    };
    return {
      ResourceEndpointList: [...new Set(Protocols as string[])].map((p) => ({
        Protocol: p,
        ResourceEndpoint: endpoints[p],
      })),
    };
  });

  scope.post('/kvs/describeMediaStorageConfiguration', async (request) => {
    const cred = auth(request);
    resolveChannel(kvs, cred, bodyOf(request), false);
    return { MediaStorageConfiguration: { Status: 'DISABLED' } };
  });

  scope.post('/kvs-data/v1/get-ice-server-config', async (request) => {
    const cred = auth(request);
    const body = bodyOf(request);
    resolveChannel(kvs, cred, body, true);
    const clientId = optionalString(body, 'ClientId');
    if (clientId !== undefined && !CLIENT_ID_PATTERN.test(clientId))
      throw invalidArgument('Invalid ClientId.');
    const service = optionalString(body, 'Service');
    if (service !== undefined && service !== 'TURN') throw invalidArgument('Service must be TURN.');
    // §8.7: no STUN/TURN locally; loopback host candidates are enough (§0.5).
    return { IceServerList: [] };
  });
}

interface Admitted {
  channelName: string;
  clientId: string | null;
}

/**
 * GET /kvs-ws/master and /kvs-ws/viewer. Every connect rule of §7.1 runs in a preHandler, before the
 * upgrade: @fastify/websocket routes the upgrade request through the normal Fastify lifecycle and writes a
 * hook's reply to the raw socket, so a refused handshake is a real HTTP 4xx with `x-amzn-errortype`.
 */
export function registerWebSocketRoutes(scope: FastifyInstance, kvs: KvsChannels): void {
  const admitted = new WeakMap<IncomingMessage, Admitted>();

  for (const role of ['MASTER', 'VIEWER'] as const satisfies readonly KvsRole[]) {
    scope.get(
      `/kvs-ws/${role.toLowerCase()}`,
      {
        websocket: true,
        preHandler: async (request) => {
          const url = new URL(request.url, 'http://stand-in.invalid');
          const arn = url.searchParams.get('X-Amz-ChannelARN');
          if (!arn) throw invalidArgument('X-Amz-ChannelARN is required.');
          const name = arnToName(arn);
          let clientId: string | null = null;
          if (role === 'VIEWER') {
            clientId = url.searchParams.get('X-Amz-ClientId');
            if (clientId === null || !CLIENT_ID_PATTERN.test(clientId) || clientId.startsWith('AWS_')) {
              throw invalidArgument(
                'X-Amz-ClientId must match [a-zA-Z0-9_.-]{1,256} and not start with AWS_.',
              );
            }
          }
          const cred = await authenticateWebSocket(
            scope.localCredentials ?? null,
            kvs.region,
            url,
            request.headers.host ?? '',
            kvs.settings.verifySignatures,
          );
          authorizeChannel(cred, name);
          const ch = kvs.find({ arn });
          if (!ch) throw notFound(arn);
          if (!kvs.hub.canAdmit(ch.channelName, role, clientId)) {
            throw new KvsError(
              'ClientLimitExceededException',
              `At most ${kvs.settings.maxViewers} viewers may connect to a channel.`,
            );
          }
          admitted.set(request.raw, { channelName: ch.channelName, clientId });
        },
      },
      (socket, request) => {
        const a = admitted.get(request.raw);
        if (!a) {
          socket.close(1011, 'Handshake was not admitted');
          return;
        }
        request.log.debug({ channel: a.channelName, role, clientId: a.clientId }, 'kvs signaling connected');
        kvs.hub.attach(socket, a.channelName, role, a.clientId);
      },
    );
  }
}
