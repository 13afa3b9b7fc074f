import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { IncomingMessage } from 'node:http';
import { authenticateHttp, authenticateWebSocket, authorize, type KvsAction, type KvsCaller } from './auth';
import { channelNameFromArn, type KvsChannel, type KvsChannels, type KvsTag } from './channels';
import { KvsError, invalidArgument } from './errors';
import { iceServerList } from './ice';
import { rawBodyOf } from './http-common';
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
 * Resolves the `ChannelName`/`ChannelARN` pair of a control-plane body, authorising `action` first and
 * answering 404 only to callers allowed to know (AWS authorises before looking the resource up).
 */
function resolveChannel(
  kvs: KvsChannels,
  caller: KvsCaller,
  action: KvsAction,
  body: Body,
  arnOnly: boolean,
): KvsChannel {
  const arn = optionalString(body, 'ChannelARN');
  const name = arnOnly ? undefined : optionalString(body, 'ChannelName');
  if (arn === undefined && name === undefined)
    throw invalidArgument(arnOnly ? 'ChannelARN is required.' : 'ChannelName or ChannelARN is required.');
  if (arn !== undefined && name !== undefined)
    throw invalidArgument('Give either ChannelName or ChannelARN, not both.');
  authorize(caller, action, arn !== undefined ? arnToName(arn) : (name ?? ''));
  const ch = kvs.find({ arn, name });
  if (!ch) throw notFound(arn ?? name ?? '');
  return ch;
}

/** The channel as DescribeSignalingChannel and ListSignalingChannels describe it. */
function channelInfo(kvs: KvsChannels, ch: KvsChannel) {
  const ttl =
    ch.messageTtlSeconds ?? Math.min(120, Math.max(5, Math.round(kvs.hub.timeouts.messageTtlMs / 1000)));
  return {
    ChannelName: ch.channelName,
    ChannelARN: ch.channelArn,
    ChannelType: 'SINGLE_MASTER',
    ChannelStatus: 'ACTIVE',
    CreationTime: ch.creationTime.getTime() / 1000, // §2: epoch seconds as a JSON number
    SingleMasterConfiguration: { MessageTtlSeconds: ttl },
    Version: ch.version,
  };
}

/** The Tags list of CreateSignalingChannel: at most 50 `{Key, Value}` (1–128 and 0–256 characters). */
function parseTags(v: unknown): KvsTag[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v) || v.length > 50) throw invalidArgument('Tags must be a list of at most 50 tags.');
  return v.map((t: unknown) => {
    const { Key, Value } = (t ?? {}) as { Key?: unknown; Value?: unknown };
    if (typeof Key !== 'string' || Key.length < 1 || Key.length > 128)
      throw invalidArgument('Tag Key must be 1–128 characters.');
    if (typeof Value !== 'string' || Value.length > 256)
      throw invalidArgument('Tag Value must be at most 256 characters.');
    return { Key, Value };
  });
}

function bodyOf(request: FastifyRequest): Body {
  return (request.body ?? {}) as Body;
}

/**
 * POST /kvs/* control plane and POST /kvs-data/* HTTPS data plane (media-stack.md §2, §7.1). Browser
 * credentials may call what their role's session policy allows; the server key pair also the channel
 * management a server in AWS mode does (Create, Delete, List).
 */
export function registerHttpRoutes(scope: FastifyInstance, kvs: KvsChannels): void {
  const auth = (request: FastifyRequest): Promise<KvsCaller> =>
    authenticateHttp({
      issuer: scope.localCredentials ?? null,
      server: kvs.settings.serverCredentials,
      region: kvs.region,
      request: {
        method: request.method,
        url: request.url,
        headers: request.headers,
        body: rawBodyOf(request),
      },
      verifySignature: kvs.settings.verifySignatures,
    });

  scope.post('/kvs/createSignalingChannel', async (request) => {
    const caller = await auth(request);
    const body = bodyOf(request);
    const name = optionalString(body, 'ChannelName');
    if (name === undefined) throw invalidArgument('ChannelName is required.');
    authorize(caller, 'CreateSignalingChannel', name);
    const type = body.ChannelType ?? 'SINGLE_MASTER';
    if (type !== 'SINGLE_MASTER') throw invalidArgument('Only SINGLE_MASTER channels are supported.');
    const cfg = (body.SingleMasterConfiguration ?? {}) as { MessageTtlSeconds?: unknown };
    if (typeof cfg !== 'object' || cfg === null) throw invalidArgument('Invalid SingleMasterConfiguration.');
    const ttl = cfg.MessageTtlSeconds;
    if (ttl !== undefined && (typeof ttl !== 'number' || !Number.isInteger(ttl) || ttl < 5 || ttl > 120))
      throw invalidArgument('MessageTtlSeconds must be an integer from 5 to 120.');
    const ch = kvs.createChannel(name, ttl ?? null, parseTags(body.Tags));
    return { ChannelARN: ch.channelArn };
  });

  scope.post('/kvs/deleteSignalingChannel', async (request) => {
    const caller = await auth(request);
    const body = bodyOf(request);
    const ch = resolveChannel(kvs, caller, 'DeleteSignalingChannel', body, true);
    const version = optionalString(body, 'CurrentVersion');
    if (version !== undefined && version !== ch.version) {
      throw new KvsError('VersionMismatchException', 'The channel version does not match CurrentVersion.');
    }
    kvs.deleteChannel(ch.channelName);
    return {};
  });

  scope.post('/kvs/listSignalingChannels', async (request) => {
    const caller = await auth(request);
    authorize(caller, 'ListSignalingChannels', null);
    const body = bodyOf(request);
    const max = body.MaxResults ?? 500;
    if (typeof max !== 'number' || !Number.isInteger(max) || max < 1 || max > 10_000)
      throw invalidArgument('MaxResults must be an integer from 1 to 10000.');
    const cond = (body.ChannelNameCondition ?? {}) as {
      ComparisonOperator?: unknown;
      ComparisonValue?: unknown;
    };
    if (cond.ComparisonOperator !== undefined && cond.ComparisonOperator !== 'BEGINS_WITH')
      throw invalidArgument('ComparisonOperator must be BEGINS_WITH.');
    const prefix = cond.ComparisonValue ?? '';
    if (typeof prefix !== 'string') throw invalidArgument('ComparisonValue must be a string.');
    // NextToken: the last name of the previous page (opaque to clients, as AWS's is).
    const token = optionalString(body, 'NextToken');
    const after = token === undefined ? '' : Buffer.from(token, 'base64url').toString('utf8');
    const rest = kvs.list(prefix).filter((c) => c.channelName > after);
    const page = rest.slice(0, max);
    const last = page[page.length - 1];
    return {
      ChannelInfoList: page.map((c) => channelInfo(kvs, c)),
      ...(rest.length > max && last
        ? { NextToken: Buffer.from(last.channelName).toString('base64url') }
        : {}),
    };
  });

  scope.post('/kvs/describeSignalingChannel', async (request) => {
    const caller = await auth(request);
    const ch = resolveChannel(kvs, caller, 'DescribeSignalingChannel', bodyOf(request), false);
    return { ChannelInfo: channelInfo(kvs, ch) };
  });

  scope.post('/kvs/getSignalingChannelEndpoint', async (request) => {
    const caller = await auth(request);
    const body = bodyOf(request);
    resolveChannel(kvs, caller, 'GetSignalingChannelEndpoint', body, true);
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
    const caller = await auth(request);
    resolveChannel(kvs, caller, 'DescribeMediaStorageConfiguration', bodyOf(request), false);
    return { MediaStorageConfiguration: { Status: 'DISABLED' } };
  });

  scope.post('/kvs-data/v1/get-ice-server-config', async (request) => {
    const caller = await auth(request);
    const body = bodyOf(request);
    const ch = resolveChannel(kvs, caller, 'GetIceServerConfig', body, true);
    const clientId = optionalString(body, 'ClientId');
    if (clientId !== undefined && !CLIENT_ID_PATTERN.test(clientId))
      throw invalidArgument('Invalid ClientId.');
    const service = optionalString(body, 'Service');
    if (service !== undefined && service !== 'TURN') throw invalidArgument('Service must be TURN.');
    // As KVS hands out its own TURN servers: the configured ones, TURN with time-limited credentials for
    // this caller (none configured: loopback host candidates are enough, media-stack.md §0.5, §8.7).
    return { IceServerList: iceServerList(kvs.settings.ice, `${ch.channelName}.${clientId ?? 'MASTER'}`) };
  });
}

interface Admitted {
  channelName: string;
  clientId: string | null;
  accessKeyId: string;
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
          // A viewer credential cannot ConnectAsMaster and vice versa (the session policy's role).
          authorize(cred, role === 'MASTER' ? 'ConnectAsMaster' : 'ConnectAsViewer', name);
          const ch = kvs.find({ arn });
          if (!ch) throw notFound(arn);
          if (!kvs.hub.canAdmit(ch.channelName, role, clientId)) {
            throw new KvsError(
              'ClientLimitExceededException',
              `At most ${kvs.settings.maxViewers} viewers may connect to a channel.`,
            );
          }
          admitted.set(request.raw, {
            channelName: ch.channelName,
            clientId,
            accessKeyId: cred.creds.accessKeyId,
          });
        },
      },
      (socket, request) => {
        const a = admitted.get(request.raw);
        if (!a) {
          socket.close(1011, 'Handshake was not admitted');
          return;
        }
        request.log.debug({ channel: a.channelName, role, clientId: a.clientId }, 'kvs signaling connected');
        kvs.hub.attach(socket, a.channelName, role, a.clientId, a.accessKeyId);
      },
    );
  }
}
