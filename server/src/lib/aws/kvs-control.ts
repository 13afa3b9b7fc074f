import {
  CreateSignalingChannelCommand,
  DeleteSignalingChannelCommand,
  KinesisVideoClient,
  ListSignalingChannelsCommand,
  type KinesisVideoClientConfig,
} from '@aws-sdk/client-kinesis-video';
import { ApiError } from '../api-error';
import type { AwsLog } from './sts-issuer';

/** The tag every channel the server creates carries, so an account's channels show whose they are. */
export const PRODUCT_TAG = Object.freeze({ Key: 'product', Value: 'proctor-exam' });
/** How long KVS keeps an undelivered signaling message (media-stack.md §6: 5–120, default 60). */
export const CHANNEL_MESSAGE_TTL_SECONDS = 60;

export interface KvsControlOptions {
  /** The KVS region (KVS_REGION). */
  region: string;
  /** The control-plane endpoint (KVS_ENDPOINT). */
  endpoint?: string | undefined;
  /** The server's own credentials; default the SDK's provider chain. */
  credentials?: KinesisVideoClientConfig['credentials'];
  /** Attempts per call, the SDK's standard retry with backoff (default 3). */
  maxAttempts?: number | undefined;
  log: AwsLog;
  /** Ensured channel names remembered, oldest forgotten first (default 10,000). */
  cacheSize?: number | undefined;
  /**
   * How long an ensured name is trusted before an ensure asks AWS again (default 15 min): another server
   * instance may have deleted an idle sitting's channel since (see channel-sweep.ts).
   */
  revalidateMs?: number | undefined;
  /** After a failed re-check of a remembered name, how long ensures trust it without asking (default 30 s). */
  retryMs?: number | undefined;
  now?: () => number;
}

/** A channel as ListSignalingChannels reports it. */
export interface ChannelSummary {
  name: string;
  arn: string;
  version: string;
  creationTime: Date | null;
  status: string | null;
}

interface Ensured {
  checkedAt: number;
  /** When a fresh ensure (a kvs_reconnect) last had AWS confirm the channel, if one did. */
  freshAt?: number;
  /** Until then a failed re-check is not repeated. */
  retryAt: number;
}

/** The modeled AWS error type of an SDK error (its `name`), or '' for anything else. */
function errorName(err: unknown): string {
  const name = (err as { name?: unknown } | null)?.name;
  return typeof name === 'string' ? name : '';
}

/** The AWS error's name and message for the log (never for the client). */
function describeError(err: unknown): {
  awsError: string;
  awsMessage: string;
  httpStatus?: number | undefined;
} {
  const e = err as { name?: unknown; message?: unknown; $metadata?: { httpStatusCode?: number } };
  return {
    awsError: typeof e.name === 'string' ? e.name : 'Error',
    awsMessage: typeof e.message === 'string' ? e.message : String(err),
    httpStatus: e.$metadata?.httpStatusCode,
  };
}

/**
 * Signaling-channel management in AWS mode, with `@aws-sdk/client-kinesis-video` against KVS_ENDPOINT and the
 * server's own credentials. `ensure` creates a sitting's channel (SINGLE_MASTER, 60 s message TTL, the
 * product tag; ResourceInUseException means it exists) and remembers the name, so the poll that hands out
 * credentials every few seconds does not call AWS; `listChannels` and `deleteChannel` serve the sweep that
 * removes channels no sitting needs any more.
 */
export class KvsControl {
  private readonly client: KinesisVideoClient;
  private readonly ensured = new Map<string, Ensured>();
  private readonly inflight = new Map<string, Promise<void>>();
  private readonly cacheSize: number;
  private readonly revalidateMs: number;
  private readonly retryMs: number;
  private readonly now: () => number;

  constructor(private readonly opts: KvsControlOptions) {
    this.client = new KinesisVideoClient({
      region: opts.region,
      ...(opts.endpoint ? { endpoint: opts.endpoint } : {}),
      ...(opts.credentials ? { credentials: opts.credentials } : {}),
      maxAttempts: opts.maxAttempts ?? 3,
      requestHandler: { connectionTimeout: 3000, requestTimeout: 5000, throwOnRequestTimeout: true },
    });
    this.cacheSize = Math.max(1, opts.cacheSize ?? 10_000);
    this.revalidateMs = opts.revalidateMs ?? 15 * 60_000;
    this.retryMs = opts.retryMs ?? 30_000;
    this.now = opts.now ?? Date.now;
  }

  /**
   * Makes sure the channel exists. A name ensured within the revalidation window returns at once; `fresh`
   * (a kvs_reconnect) asks AWS regardless, unless a fresh ensure of the name had AWS confirm it less than
   * `reuseMs` ago: the first reconnect after a failure re-checks the channel, a page in a reconnect loop or a
   * storm of reconnects does not call the control plane (which throttles) once per call — the same window
   * as the reconnect's credentials (matching-channels.ts). When AWS cannot be reached, a name ensured before
   * is trusted (logged; asked again after the retry delay), and a never-ensured one is a 503: there is no
   * channel to hand out yet, and the next poll tries again.
   */
  async ensure(name: string, opts: { fresh?: boolean; reuseMs?: number } = {}): Promise<void> {
    const now = this.now();
    const hit = this.ensured.get(name);
    if (hit && !opts.fresh && (now - hit.checkedAt < this.revalidateMs || now < hit.retryAt)) return;
    if (hit && opts.fresh && hit.freshAt !== undefined && now - hit.freshAt < (opts.reuseMs ?? 0)) return;
    try {
      await this.create(name);
      if (opts.fresh) {
        const done = this.ensured.get(name);
        if (done) done.freshAt = now;
      }
    } catch (err) {
      if (hit) {
        hit.retryAt = now + this.retryMs;
        this.opts.log.warn(
          { ...describeError(err), channel: name },
          'KVS channel re-check failed; using the channel ensured before',
        );
        return;
      }
      this.opts.log.error(
        { ...describeError(err), channel: name },
        'KVS CreateSignalingChannel failed; the next poll retries',
      );
      throw new ApiError(503, 'internal', 'The signaling channel is not available yet; retry later.', {
        'Retry-After': '5',
      });
    }
  }

  /** Whether `name` is remembered as ensured (tests, diagnostics). */
  isEnsured(name: string): boolean {
    return this.ensured.has(name);
  }

  /** When AWS last confirmed the remembered channel (created it or found it existing), or null. */
  checkedAt(name: string): number | null {
    return this.ensured.get(name)?.checkedAt ?? null;
  }

  /** Forgets an ensured name, so the next ensure creates it again. */
  forget(name: string): void {
    this.ensured.delete(name);
  }

  /** Every channel whose name starts with `prefix` (ListSignalingChannels, all pages). */
  async listChannels(prefix: string): Promise<ChannelSummary[]> {
    const out: ChannelSummary[] = [];
    let token: string | undefined;
    do {
      const page = await this.client.send(
        new ListSignalingChannelsCommand({
          MaxResults: 500,
          ...(token ? { NextToken: token } : {}),
          ChannelNameCondition: { ComparisonOperator: 'BEGINS_WITH', ComparisonValue: prefix },
        }),
      );
      for (const c of page.ChannelInfoList ?? []) {
        if (!c.ChannelName || !c.ChannelARN) continue;
        out.push({
          name: c.ChannelName,
          arn: c.ChannelARN,
          version: c.Version ?? '',
          creationTime: c.CreationTime ?? null,
          status: c.ChannelStatus ?? null,
        });
      }
      token = page.NextToken || undefined;
    } while (token);
    return out;
  }

  /**
   * Deletes a listed channel (DeleteSignalingChannel with its ARN and CurrentVersion, so a channel changed
   * since the listing is left for the next sweep); 'gone' when it no longer exists. Other errors throw.
   */
  async deleteChannel(ch: Pick<ChannelSummary, 'name' | 'arn' | 'version'>): Promise<'deleted' | 'gone'> {
    this.forget(ch.name);
    try {
      await this.client.send(
        new DeleteSignalingChannelCommand({
          ChannelARN: ch.arn,
          ...(ch.version ? { CurrentVersion: ch.version } : {}),
        }),
      );
      return 'deleted';
    } catch (err) {
      if (errorName(err) === 'ResourceNotFoundException') return 'gone';
      throw err;
    }
  }

  /** Closes the SDK client's sockets. */
  destroy(): void {
    this.client.destroy();
  }

  /** One CreateSignalingChannel per name at a time; concurrent ensures share it. */
  private create(name: string): Promise<void> {
    let p = this.inflight.get(name);
    if (!p) {
      p = this.createOnce(name).finally(() => this.inflight.delete(name));
      this.inflight.set(name, p);
    }
    return p;
  }

  private async createOnce(name: string): Promise<void> {
    try {
      await this.client.send(
        new CreateSignalingChannelCommand({
          ChannelName: name,
          ChannelType: 'SINGLE_MASTER',
          SingleMasterConfiguration: { MessageTtlSeconds: CHANNEL_MESSAGE_TTL_SECONDS },
          Tags: [{ ...PRODUCT_TAG }],
        }),
      );
    } catch (err) {
      if (errorName(err) !== 'ResourceInUseException') throw err;
      // It exists already: created by an earlier poll, another server instance, or before a restart.
    }
    this.remember(name);
  }

  private remember(name: string): void {
    const now = this.now();
    this.ensured.delete(name); // re-insert: Map order is the eviction order
    this.ensured.set(name, { checkedAt: now, retryAt: 0 });
    while (this.ensured.size > this.cacheSize) {
      const oldest = this.ensured.keys().next().value;
      if (oldest === undefined) break;
      this.ensured.delete(oldest);
    }
  }
}
