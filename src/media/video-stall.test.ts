import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { VIDEO_STALL_MS, VIDEO_STALL_POLL_MS, inboundVideoProgress, watchVideoStall } from './video-stall';

/** A receiver whose getStats answers `reports` (an RTCStatsReport is a map; forEach is all that is read). */
const receiver = (reports: Record<string, unknown>[]) => ({
  getStats: () =>
    Promise.resolve(new Map(reports.map((r, i) => [String(i), r])) as unknown as RTCStatsReport),
});

describe('inboundVideoProgress', () => {
  it('counts decoded video frames only: the audio beside them does not make a still picture alive', async () => {
    expect(
      await inboundVideoProgress(
        receiver([
          { type: 'inbound-rtp', kind: 'audio', packetsReceived: 900 },
          { type: 'inbound-rtp', kind: 'video', framesDecoded: 42, packetsReceived: 300 },
          { type: 'candidate-pair', bytesReceived: 1 },
        ]),
      ),
    ).toBe(42);
  });

  it('falls back to received packets where frames are not counted, and is 0 before any video arrived', async () => {
    expect(
      await inboundVideoProgress(receiver([{ type: 'inbound-rtp', kind: 'video', packetsReceived: 7 }])),
    ).toBe(7);
    expect(
      await inboundVideoProgress(receiver([{ type: 'inbound-rtp', kind: 'audio', packetsReceived: 5 }])),
    ).toBe(0);
  });
});

describe('watchVideoStall', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  /** Frames decoded so far; `moving` adds 30 per read, as a camera at 30 fps read once a second. */
  function camera() {
    const cam = { frames: 0, moving: true, reads: 0 };
    const progress = () => {
      cam.reads += 1;
      if (cam.moving) cam.frames += 30;
      return Promise.resolve(cam.frames);
    };
    return { cam, progress };
  }

  it('says stalled once no frame came for VIDEO_STALL_MS, and moving again with the next frames', async () => {
    const { cam, progress } = camera();
    const changes: boolean[] = [];
    const w = watchVideoStall(progress, (s) => changes.push(s));
    await vi.advanceTimersByTimeAsync(10 * VIDEO_STALL_POLL_MS);
    expect(changes).toEqual([]);
    // The examinee's video stops (a sender without a track, a page reloading).
    cam.moving = false;
    await vi.advanceTimersByTimeAsync(VIDEO_STALL_MS - VIDEO_STALL_POLL_MS);
    expect(changes).toEqual([]);
    await vi.advanceTimersByTimeAsync(VIDEO_STALL_POLL_MS);
    expect(changes).toEqual([true]);
    // Still stalled: said once.
    await vi.advanceTimersByTimeAsync(5 * VIDEO_STALL_POLL_MS);
    expect(changes).toEqual([true]);
    cam.moving = true;
    await vi.advanceTimersByTimeAsync(VIDEO_STALL_POLL_MS);
    expect(changes).toEqual([true, false]);
    w.stop();
  });

  it('counts video that never comes as stalled, but not frames decoded before the watch began', async () => {
    const { cam, progress } = camera();
    cam.frames = 5000;
    cam.moving = false;
    const changes: boolean[] = [];
    const w = watchVideoStall(progress, (s) => changes.push(s));
    await vi.advanceTimersByTimeAsync(VIDEO_STALL_MS);
    expect(changes).toEqual([true]);
    w.stop();
  });

  it('reads once per interval (never two reads at once) and nothing after stop', async () => {
    let resolve: ((n: number) => void) | null = null;
    const progress = vi.fn(() => new Promise<number>((r) => (resolve = r)));
    const changes: boolean[] = [];
    const w = watchVideoStall(progress, (s) => changes.push(s));
    await vi.advanceTimersByTimeAsync(5 * VIDEO_STALL_POLL_MS);
    // The first read has not answered yet (a busy browser): no second one meanwhile.
    expect(progress).toHaveBeenCalledTimes(1);
    w.stop();
    resolve!(0);
    await vi.advanceTimersByTimeAsync(10 * VIDEO_STALL_POLL_MS);
    expect(progress).toHaveBeenCalledTimes(1);
    expect(changes).toEqual([]);
  });

  it('skips a read that fails (the connection closing)', async () => {
    const { cam, progress } = camera();
    let fail = true;
    const changes: boolean[] = [];
    const w = watchVideoStall(
      () => (fail ? Promise.reject(new Error('closed')) : progress()),
      (s) => changes.push(s),
    );
    await vi.advanceTimersByTimeAsync(VIDEO_STALL_POLL_MS);
    fail = false;
    await vi.advanceTimersByTimeAsync(5 * VIDEO_STALL_POLL_MS);
    expect(changes).toEqual([]);
    expect(cam.reads).toBe(5);
    w.stop();
  });
});
