import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { VIEW_FRAMES_POLL_MS, followViewTrack } from './monitoring-viewers';
import type { PaneViewStatus } from './pane-views';

/** A remote video track as Chromium gives it for an extra view: unmuted from the start, frames or not. */
function remoteTrack() {
  return Object.assign(new EventTarget(), { muted: false, kind: 'video', readyState: 'live' });
}

/** A receiver whose inbound video statistics report `frames.n` decoded frames. */
function receiverWith(frames: { n: number }) {
  return {
    getStats: vi.fn(
      async () => new Map([['in', { type: 'inbound-rtp', kind: 'video', framesDecoded: frames.n }]]),
    ),
  } as unknown as RTCRtpReceiver;
}

describe('an extra view follows its decoded frames', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('is waiting while no frame comes although the track is unmuted, live while frames come, waiting when they stop', async () => {
    const track = remoteTrack();
    const stream = { getVideoTracks: () => [track] } as unknown as MediaStream;
    const frames = { n: 0 };
    const seen: PaneViewStatus[] = [];
    let alive = true;
    followViewTrack(
      stream,
      (s) => seen.push(s),
      receiverWith(frames),
      () => alive,
    );
    // The publisher has no screen yet: the unmuted track is not a share.
    await vi.advanceTimersByTimeAsync(VIEW_FRAMES_POLL_MS * 2);
    expect(seen.at(-1)).toBe('waiting');
    expect(seen).not.toContain('live');
    frames.n = 10;
    await vi.advanceTimersByTimeAsync(VIEW_FRAMES_POLL_MS);
    expect(seen.at(-1)).toBe('live');
    frames.n = 20;
    await vi.advanceTimersByTimeAsync(VIEW_FRAMES_POLL_MS);
    expect(seen.at(-1)).toBe('live');
    // The share stopped sending: the count stands still.
    await vi.advanceTimersByTimeAsync(VIEW_FRAMES_POLL_MS);
    expect(seen.at(-1)).toBe('waiting');
    // A replaced viewer stops counting.
    alive = false;
    const before = seen.length;
    frames.n = 30;
    await vi.advanceTimersByTimeAsync(VIEW_FRAMES_POLL_MS * 3);
    expect(seen.length).toBe(before);
  });

  it('without receiver statistics, follows the track mute state', () => {
    const track = remoteTrack();
    const stream = { getVideoTracks: () => [track] } as unknown as MediaStream;
    const seen: PaneViewStatus[] = [];
    followViewTrack(stream, (s) => seen.push(s));
    expect(seen).toEqual(['live']);
    track.dispatchEvent(new Event('mute'));
    expect(seen.at(-1)).toBe('waiting');
  });
});
