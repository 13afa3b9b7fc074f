import type { FastifyInstance } from 'fastify';
import type { KvsChannels } from './channels';
import { invalidArgument } from './errors';
import { DEFAULT_TIMEOUTS, type KvsTimeouts } from './settings';

type Body = Record<string, unknown>;

function str(body: Body, key: string, required: true): string;
function str(body: Body, key: string, required: false): string | undefined;
function str(body: Body, key: string, required: boolean): string | undefined {
  const v = body[key];
  if (v === undefined && !required) return undefined;
  if (typeof v !== 'string' || v === '') throw invalidArgument(`${key} must be a non-empty string.`);
  return v;
}

/**
 * Test-only routes under /__kvs (media-stack.md §7.1), mounted only when `config.testHooks` is on:
 * - `GET /__kvs/state`: channels with their connections, queued messages and relay counters, and the timeouts.
 * - `POST /__kvs/channels {channelName}`: create a channel (what the app server does per exam session).
 * - `POST /__kvs/kick {channelName, role: 'MASTER'|'VIEWER', clientId?}`: close sockets (all viewers without clientId).
 * - `POST /__kvs/expire {accessKeyId}`: expire a credential now (open sockets stay open, as with AWS).
 * - `POST /__kvs/timeouts {idleTimeoutMs?, maxDurationMs?, messageTtlMs?, reset?}`: for connections opened afterwards.
 */
export function registerTestHooks(scope: FastifyInstance, kvs: KvsChannels): void {
  scope.get('/__kvs/state', async () => ({
    region: kvs.region,
    timeouts: kvs.hub.timeouts,
    channels: kvs.state(),
  }));

  scope.post('/__kvs/channels', async (request) =>
    kvs.ensureChannel(str((request.body ?? {}) as Body, 'channelName', true)),
  );

  scope.post('/__kvs/kick', async (request) => {
    const body = (request.body ?? {}) as Body;
    const role = body.role;
    if (role !== 'MASTER' && role !== 'VIEWER') throw invalidArgument('role must be MASTER or VIEWER.');
    return { closed: kvs.hub.kick(str(body, 'channelName', true), role, str(body, 'clientId', false)) };
  });

  scope.post('/__kvs/expire', async (request) => {
    const accessKeyId = str((request.body ?? {}) as Body, 'accessKeyId', true);
    const issuer = scope.localCredentials;
    const known = issuer?.lookup(accessKeyId) != null;
    issuer?.expire(accessKeyId);
    return { expired: known };
  });

  scope.post('/__kvs/timeouts', async (request) => {
    const body = (request.body ?? {}) as Body;
    const next: KvsTimeouts = body.reset === true ? { ...kvs.settings.timeouts } : { ...kvs.hub.timeouts };
    for (const key of Object.keys(DEFAULT_TIMEOUTS) as (keyof KvsTimeouts)[]) {
      const v = body[key];
      if (v === undefined) continue;
      if (typeof v !== 'number' || !Number.isFinite(v) || v < 0)
        throw invalidArgument(`${key} must be milliseconds >= 0.`);
      next[key] = v;
    }
    kvs.hub.timeouts = next;
    return { timeouts: next };
  });
}
