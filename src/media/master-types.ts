/** Credentials of one signaling channel as the app server hands them out (spec §3), camelCase. */
export interface KvsChannel {
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken: string;
  channelName: string;
  /** KVS control-plane endpoint override (the local stand-in); absent with AWS. */
  endpoint?: string;
  /** ISO 8601 expiry of the credentials. */
  expiration: string;
}

/** Just the channel's fields, from a matching's signaling channel (which carries more). */
export function kvsChannelOf(ch: KvsChannel): KvsChannel {
  return {
    region: ch.region,
    accessKeyId: ch.accessKeyId,
    secretAccessKey: ch.secretAccessKey,
    sessionToken: ch.sessionToken,
    channelName: ch.channelName,
    endpoint: ch.endpoint,
    expiration: ch.expiration,
  };
}

/** Status of the master connection (the live slice mirrors it). */
export type MasterStatus = 'connecting' | 'live' | 'reconnecting' | 'lost' | 'stopped';

/** Library events turned into plain callbacks (STYLE habit 7): the live listener dispatches them. */
export interface MasterCallbacks {
  onStatus(status: MasterStatus): void;
  /** The viewer client ids with a peer connection now. */
  onViewers(viewerIds: string[]): void;
  /** Signaling could not be (re)opened after every retry: the caller deletes the matching (spec §4). */
  onLost(reason: string): void;
}

/** Encoder limits of a live video (RTCRtpSender encodings); the recording is not affected. */
export interface VideoLimits {
  /** Upper bound of the live encoding in bit/s. */
  maxBitrate?: number;
  /** Upper bound of the live frame rate. */
  maxFramerate?: number;
}

/** A video stream sent beside the camera (the shared screen), with the encoder limits of its live copy. */
export interface ExtraStream extends VideoLimits {
  /** Registry id of the stream (stream-registry.ts). */
  streamId: string;
}

/** Options of {@link startMaster} (master.ts). */
export interface MasterOptions {
  channel: KvsChannel;
  /** Registry id of the camera+microphone stream to publish. */
  streamId: string;
  /**
   * Encoder limits of that stream's live video, kept when the track is replaced (replaceVideoTrack). None: the
   * browser adapts it to the connection, up to libwebrtc's own ceiling.
   */
  videoLimits?: VideoLimits;
  /**
   * Further video streams sent on the same peer connections, one per extra video m-line a viewer offers after
   * the camera's (viewer.ts `extraViews`), in order. Each follows its registry id: a stream registered later,
   * replaced or released changes what is sent without renegotiating (an extra view sends nothing meanwhile).
   */
  extraStreams?: readonly ExtraStream[];
  /** Fresh credentials for a reconnect (kvs_reconnect); null keeps the current ones. */
  refreshCredentials: () => Promise<KvsChannel | null>;
  /**
   * The viewer ClientId of the currently matched checker, as the matching carries it: offers from any other
   * ClientId are ignored (null: none is answered). Undefined when the API names none: every viewer is answered.
   */
  allowedViewer?: () => string | null | undefined;
  callbacks: MasterCallbacks;
  /** Signaling start-up attempts before giving up (spec §4: 3). */
  retries?: number;
  /** Pause between attempts. */
  retryDelayMs?: number;
  /** How long an open may take before it counts as failed. */
  openTimeoutMs?: number;
  /** Reconnect proactively before the service's 1 h cap. */
  maxConnectionMs?: number;
}

/** A running master. */
export interface MasterHandle {
  readonly channelName: string;
  /** Closes every peer and the signaling socket; waits for the close at most `graceMs`. */
  stop(graceMs: number): Promise<void>;
  /** Closes and reopens the signaling socket with fresh credentials (matching command 1, GO_AWAY). */
  reconnect(): Promise<void>;
  /**
   * `allowedViewer` may name another ClientId now: closes the peer of every viewer it no longer allows (the
   * checker was removed or replaced) and answers a held offer of the one it now allows.
   */
  matchedViewerChanged(): void;
  /**
   * Sends `track` in place of the video track every connected viewer receives (RTCRtpSender.replaceTrack, no
   * new offer): the phone camera switching between its rear and front camera. New viewers get the registry's
   * stream as it is then.
   */
  replaceVideoTrack(track: MediaStreamTrack): Promise<void>;
  /** Small connection statistics for the matching poll. */
  stats(): { status: MasterStatus; viewers: number; peers: Record<string, string> };
}
