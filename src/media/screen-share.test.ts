import { afterEach, describe, expect, it, vi } from 'vitest';
import { ScreenShareError, displaySurfaceOf, onShareEnded, shareEntireScreen } from './screen-share';

class FakeTrack extends EventTarget {
  readyState: 'live' | 'ended' = 'live';
  contentHint = '';
  constructor(private readonly surface: string | undefined) {
    super();
  }
  getSettings() {
    return this.surface ? { displaySurface: this.surface } : {};
  }
  stop() {
    this.readyState = 'ended';
  }
}
const streamOf = (t: FakeTrack) =>
  ({ getVideoTracks: () => [t], getTracks: () => [t] }) as unknown as MediaStream;

function displayMedia(impl: () => Promise<MediaStream>) {
  const fn = vi.fn((_options?: DisplayMediaStreamOptions) => impl());
  Object.defineProperty(navigator, 'mediaDevices', { configurable: true, value: { getDisplayMedia: fn } });
  return fn;
}

afterEach(() => {
  Object.defineProperty(navigator, 'mediaDevices', { configurable: true, value: undefined });
});

describe('shareEntireScreen', () => {
  it('asks for the screen and takes the entire screen, marked as detail content', async () => {
    const track = new FakeTrack('monitor');
    const fn = displayMedia(async () => streamOf(track));
    const stream = await shareEntireScreen();
    expect(fn.mock.calls[0]![0]).toMatchObject({ video: { displaySurface: 'monitor' }, audio: false });
    expect(displaySurfaceOf(stream)).toBe('monitor');
    expect(track.contentHint).toBe('detail');
    expect(track.readyState).toBe('live');
  });

  it.each(['window', 'browser'])('refuses a %s and stops its capture at once', async (surface) => {
    const track = new FakeTrack(surface);
    displayMedia(async () => streamOf(track));
    await expect(shareEntireScreen()).rejects.toMatchObject({ reason: 'notEntireScreen' });
    expect(track.readyState).toBe('ended');
  });

  it('says why it failed: refused, unsupported, no screen sharing in this browser', async () => {
    displayMedia(async () => {
      throw new DOMException('no', 'NotAllowedError');
    });
    await expect(shareEntireScreen()).rejects.toMatchObject({ reason: 'denied' });
    displayMedia(async () => {
      throw new DOMException('no', 'NotSupportedError');
    });
    await expect(shareEntireScreen()).rejects.toMatchObject({ reason: 'unsupported' });
    Object.defineProperty(navigator, 'mediaDevices', { configurable: true, value: {} });
    const e = await shareEntireScreen().catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ScreenShareError);
    expect((e as ScreenShareError).reason).toBe('unsupported');
  });
});

describe('onShareEnded', () => {
  it('calls back once when the browser ends the share, and not after unsubscribing', () => {
    const track = new FakeTrack('monitor');
    const ended = vi.fn();
    onShareEnded(streamOf(track), ended);
    track.dispatchEvent(new Event('ended'));
    track.dispatchEvent(new Event('ended'));
    expect(ended).toHaveBeenCalledTimes(1);
    const other = new FakeTrack('monitor');
    const never = vi.fn();
    onShareEnded(streamOf(other), never)();
    other.dispatchEvent(new Event('ended'));
    expect(never).not.toHaveBeenCalled();
  });
});
