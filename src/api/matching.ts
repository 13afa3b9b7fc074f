import type {
  ChannelStatus,
  DeleteMatchingResult,
  Matching as WireMatching,
  MatchingResult,
  SignalingChannel as WireChannel,
} from '@contract/matching';
import { camelize, type Camelize } from '../lib/case';
import { call } from './client';

/** Temporary KVS signaling credentials of spec §3, camelCase. */
export type SignalingChannel = Camelize<WireChannel>;
/** A matching of spec §3, camelCase. */
export type Matching = Omit<Camelize<WireMatching>, 'startupParameters' | 'signalingChannel'> & {
  startupParameters: Record<string, unknown>;
  signalingChannel: SignalingChannel | null;
};
export type { ChannelStatus };

/** A matching.php answer: the caller's matchings and the poll interval (seconds). */
export interface MatchingPoll {
  matchings: Matching[];
  matchingTimeout: number;
}

/**
 * Spec §3/§5: a signaling channel is valid only with region, access key, secret key and channel name.
 *
 * @param ch - the channel of a matching (or null).
 */
export function isValidChannel(ch: SignalingChannel | null | undefined): ch is SignalingChannel {
  return !!ch && !!ch.region && !!ch.accessKeyId && !!ch.secretAccessKey && !!ch.channelName;
}

function toMatching(m: WireMatching): Matching {
  const { startup_parameters: sp, signaling_channel: ch, ...rest } = m;
  return {
    ...camelize(rest),
    startupParameters: sp,
    signalingChannel: ch ? camelize(ch) : null,
  };
}

/** Body of one examinee poll. */
export interface PollMatchingArgs {
  testerId?: number;
  channelStatus?: ChannelStatus;
  stats?: Record<string, unknown>;
  /** 1 acknowledges a signaling-channel reset (spec §4 matching command 1). */
  matchingCommand?: 0 | 1;
}

/**
 * POST matching.php (spec §7): reports the channel status and stats, returns the matchings and the
 * server's poll interval.
 */
export async function pollMatching(args: PollMatchingArgs, signal?: AbortSignal): Promise<MatchingPoll> {
  const data: Record<string, unknown> = {};
  if (args.testerId !== undefined) data.tester_id = args.testerId;
  if (args.channelStatus) data.channel_status = args.channelStatus;
  if (args.stats) data.stats = args.stats;
  if (args.matchingCommand !== undefined) data.matching_command = args.matchingCommand;
  const r = await call<MatchingResult>('matching', { data, signal });
  return {
    matchings: (r?.matchings ?? []).map(toMatching),
    matchingTimeout: r?.matching_timeout ?? 0,
  };
}

/** POST delete_matching.php (spec §7): removes the tester's matching (a tester may omit its own id). */
export async function deleteMatching(
  testerId?: number,
): Promise<{ deleted: boolean; monitorId: number | null }> {
  const r = await call<DeleteMatchingResult>('delete_matching', {
    data: testerId === undefined ? {} : { tester_id: testerId },
  });
  return { deleted: r.deleted, monitorId: r.monitor_id };
}

/** GET kvs_reconnect.php (spec §7): the matching with fresh signaling credentials, or null. */
export async function kvsReconnect(testerId?: number): Promise<Matching | null> {
  const r = await call<WireMatching | null>('kvs_reconnect', {
    method: 'GET',
    params: testerId === undefined ? {} : { tester_id: testerId },
  });
  return r ? toMatching(r) : null;
}
