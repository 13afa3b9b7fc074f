import { randomBytes } from 'node:crypto';
import { appendFileSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { KvsError, invalidArgument } from './errors';
import { CLIENT_ID_PATTERN, SignalingHub, type KvsConnectionState } from './signaling-hub';
import type { KvsSettings } from './settings';

/** A signaling channel as the app server sees it. */
export interface KvsChannelRef {
  channelName: string;
  channelArn: string;
}

/** A tag on a channel, as the API spells it. */
export interface KvsTag {
  Key: string;
  Value: string;
}

/** A registered channel. */
export interface KvsChannel extends KvsChannelRef {
  creationTime: Date;
  /** Changes with every update; DeleteSignalingChannel may name it (CurrentVersion). */
  version: string;
  /** MessageTtlSeconds given to CreateSignalingChannel; null = the stand-in's configured TTL. */
  messageTtlSeconds: number | null;
  tags: KvsTag[];
}

/** One channel in the test-visible state. */
export interface KvsChannelState extends KvsChannelRef, KvsConnectionState {}

/** Channel names follow the KVS API pattern (same character set as ClientIds). */
const CHANNEL_NAME = CLIENT_ID_PATTERN;
const ARN = /^arn:aws:kinesisvideo:([a-z0-9-]+):(\d{12}):channel\/([a-zA-Z0-9_.-]{1,256})\/(\d+)$/;
const ACCOUNT = '000000000000';

/** The channel name inside a signaling-channel ARN, or null when the string is not one. */
export function channelNameFromArn(arn: string): string | null {
  return ARN.exec(arn)?.[3] ?? null;
}

/** One line of the channels file: a channel created, or one deleted. */
type ChannelRecord =
  | {
      op: 'create';
      name: string;
      arn: string;
      at: number;
      version: string;
      ttl: number | null;
      tags: KvsTag[];
    }
  | { op: 'delete'; name: string };

/**
 * The channel registry of the KVS stand-in, decorated as `app.kvs`. With `settings.channelsFile` every creation
 * and deletion is appended to that file and read back at start (then rewritten with the channels alone), so
 * channels outlive a restart of the stand-ins as AWS's outlive anything: a server that created a channel before
 * the restart need not check it again after. With the stand-in on, the app
 * server creates a channel per exam session with `ensureChannel`; a server in AWS mode pointed at this
 * stand-in calls CreateSignalingChannel, served by `createChannel`. The browsers then find it through
 * DescribeSignalingChannel.
 */
export class KvsChannels {
  private readonly byName = new Map<string, KvsChannel>();
  /** The WebSocket connections and relay state. */
  readonly hub: SignalingHub;

  constructor(readonly settings: KvsSettings) {
    this.hub = new SignalingHub(settings);
    if (settings.channelsFile) this.load(settings.channelsFile);
  }

  /** The region in ARNs and the one clients must sign for. */
  get region(): string {
    return this.settings.region;
  }

  /**
   * Returns the channel, creating it on first use. ARN: `arn:aws:kinesisvideo:<region>:000000000000:channel/<name>/<creationMillis>`.
   * Throws InvalidArgumentException for a name outside `[a-zA-Z0-9_.-]{1,256}`.
   */
  ensureChannel(name: string): KvsChannelRef {
    const ch = this.byName.get(name) ?? this.add(name, null, []);
    return { channelName: ch.channelName, channelArn: ch.channelArn };
  }

  /**
   * CreateSignalingChannel: a new channel, or ResourceInUseException when the name exists (as AWS answers,
   * whoever created it).
   */
  createChannel(name: string, messageTtlSeconds: number | null, tags: KvsTag[]): KvsChannel {
    if (this.byName.has(name)) {
      throw new KvsError(
        'ResourceInUseException',
        `The signaling channel ${name.slice(0, 256)} already exists.`,
      );
    }
    return this.add(name, messageTtlSeconds, tags);
  }

  /** Deletes a channel and closes its connections; true if it existed. */
  deleteChannel(name: string): boolean {
    this.hub.closeChannel(name);
    const existed = this.byName.delete(name);
    if (existed) this.record({ op: 'delete', name });
    return existed;
  }

  /** Channels in name order, optionally only those whose name starts with `prefix`. */
  list(prefix = ''): KvsChannel[] {
    return [...this.byName.values()]
      .filter((c) => c.channelName.startsWith(prefix))
      .sort((a, b) => (a.channelName < b.channelName ? -1 : a.channelName > b.channelName ? 1 : 0));
  }

  private add(name: string, messageTtlSeconds: number | null, tags: KvsTag[]): KvsChannel {
    if (!CHANNEL_NAME.test(name)) throw invalidArgument(`Invalid channel name: ${name.slice(0, 64)}`);
    const creationTime = new Date();
    const ch: KvsChannel = {
      channelName: name,
      channelArn: `arn:aws:kinesisvideo:${this.region}:${ACCOUNT}:channel/${name}/${creationTime.getTime()}`,
      creationTime,
      version: randomBytes(10).toString('hex'),
      messageTtlSeconds,
      tags,
    };
    this.byName.set(name, ch);
    this.record({
      op: 'create',
      name,
      arn: ch.channelArn,
      at: creationTime.getTime(),
      version: ch.version,
      ttl: messageTtlSeconds,
      tags,
    });
    return ch;
  }

  /** Appends a change to the channels file, if there is one (synchronously: a handful of lines per sitting). */
  private record(r: ChannelRecord): void {
    if (this.settings.channelsFile) appendFileSync(this.settings.channelsFile, JSON.stringify(r) + '\n');
  }

  /** Replays the channels file, then rewrites it with the live channels alone (so deletions do not pile up). */
  private load(file: string): void {
    mkdirSync(path.dirname(file), { recursive: true });
    if (existsSync(file)) {
      for (const line of readFileSync(file, 'utf8').split('\n')) {
        if (!line.trim()) continue;
        let r: ChannelRecord;
        try {
          r = JSON.parse(line) as ChannelRecord;
        } catch {
          continue; // a line cut short by a crash
        }
        if (r.op === 'delete') this.byName.delete(r.name);
        else if (r.op === 'create' && CHANNEL_NAME.test(r.name))
          this.byName.set(r.name, {
            channelName: r.name,
            channelArn: r.arn,
            creationTime: new Date(r.at),
            version: r.version,
            messageTtlSeconds: r.ttl,
            tags: r.tags,
          });
      }
    }
    const tmp = `${file}.tmp-${process.pid}`;
    const lines = [...this.byName.values()].map((ch) =>
      JSON.stringify({
        op: 'create',
        name: ch.channelName,
        arn: ch.channelArn,
        at: ch.creationTime.getTime(),
        version: ch.version,
        ttl: ch.messageTtlSeconds,
        tags: ch.tags,
      } satisfies ChannelRecord),
    );
    writeFileSync(tmp, lines.map((l) => l + '\n').join(''));
    renameSync(tmp, file);
  }

  /** Looks a channel up by name or by its exact ARN (a stale ARN of a re-created channel does not match). */
  find(ref: { name?: string | undefined; arn?: string | undefined }): KvsChannel | null {
    if (ref.arn !== undefined) {
      const name = channelNameFromArn(ref.arn);
      const ch = name === null ? undefined : this.byName.get(name);
      return ch && ch.channelArn === ref.arn ? ch : null;
    }
    if (ref.name !== undefined) return this.byName.get(ref.name) ?? null;
    return null;
  }

  /** All channels with their connections, queued messages and relay counters. */
  state(): KvsChannelState[] {
    return [...this.byName.values()].map((ch) => ({
      channelName: ch.channelName,
      channelArn: ch.channelArn,
      ...this.hub.state(ch.channelName),
    }));
  }

  /** Closes every connection (server shutdown). */
  close(): void {
    this.hub.closeAll();
  }
}
