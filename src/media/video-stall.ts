/**
 * Whether a received video still moves. RTCPeerConnection stays 'connected' while the publisher sends no
 * frame (its page reloading, its camera gone, a sender with no track), and the <video> element just keeps the
 * last picture: only the receiver's statistics tell that nothing new arrives.
 */

/** How often a watched receiver's statistics are read (one getStats of one receiver: cheap). */
export const VIDEO_STALL_POLL_MS = 1000;
/** How long without a newly decoded frame counts as stalled. */
export const VIDEO_STALL_MS = 2000;

interface InboundVideoStats {
  type?: string;
  kind?: string;
  framesDecoded?: number;
  packetsReceived?: number;
}

/**
 * How far the receiver's inbound video has got: its decoded frames (its received packets where the browser
 * counts no frames), 0 while it has no inbound video statistics yet (nothing arrived). Only video counts: a
 * receiver of audio, or the audio beside it, never makes a still picture look alive.
 */
export async function inboundVideoProgress(receiver: Pick<RTCRtpReceiver, 'getStats'>): Promise<number> {
  const stats = await receiver.getStats();
  let progress = 0;
  stats.forEach((r: InboundVideoStats) => {
    if (r.type !== 'inbound-rtp' || r.kind !== 'video') return;
    progress += typeof r.framesDecoded === 'number' ? r.framesDecoded : (r.packetsReceived ?? 0);
  });
  return progress;
}

/** A running watch; `stop` ends it (no call of `onChange` afterwards). */
export interface VideoStallWatch {
  stop(): void;
}

export interface VideoStallOptions {
  pollMs?: number;
  stallMs?: number;
}

/**
 * Reads `progress` at once and then every `pollMs`, and calls `onChange(true)` once it has not grown for
 * `stallMs` since the first read (so video that never comes counts too, but frames decoded before the watch
 * began are no news), `onChange(false)` when it grows again. The video is taken to move at the start: only
 * changes are reported. A read that fails (the connection closing) is skipped; a read still running when the
 * next is due is not doubled.
 */
export function watchVideoStall(
  progress: () => Promise<number>,
  onChange: (stalled: boolean) => void,
  opts: VideoStallOptions = {},
): VideoStallWatch {
  const pollMs = opts.pollMs ?? VIDEO_STALL_POLL_MS;
  const stallMs = opts.stallMs ?? VIDEO_STALL_MS;
  let stopped = false;
  let reading = false;
  let stalled = false;
  let last: number | null = null;
  let movedAt = 0;
  const read = () => {
    if (reading) return;
    reading = true;
    progress().then(
      (value) => {
        reading = false;
        if (stopped) return;
        const now = Date.now();
        if (last === null || value > last) movedAt = now;
        last = value;
        const still = now - movedAt >= stallMs;
        if (still !== stalled) {
          stalled = still;
          onChange(still);
        }
      },
      () => {
        reading = false;
      },
    );
  };
  read();
  const timer = setInterval(read, pollMs);
  return {
    stop() {
      stopped = true;
      clearInterval(timer);
    },
  };
}
