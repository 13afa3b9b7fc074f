/**
 * The examinee's screen (README "The wider view"): `getDisplayMedia` for the entire screen only. A window or a
 * browser tab is refused (the track's `displaySurface`, the browser's own word for what the person picked),
 * its tracks stopped at once. No React, no Redux: the wider-view feature calls this and keeps ids.
 */

import { SCREEN_FRAME_RATE } from './stream-registry';

/** Why the screen could not be shared: the person chose a window or a tab, said no, or the browser cannot. */
export type ScreenShareFailure = 'notEntireScreen' | 'denied' | 'unsupported' | 'failed';

export class ScreenShareError extends Error {
  constructor(readonly reason: ScreenShareFailure) {
    super(`screen share: ${reason}`);
    this.name = 'ScreenShareError';
  }
}

/** Whether this browser can share a screen at all (mobile browsers cannot). */
export function canShareScreen(): boolean {
  return typeof navigator !== 'undefined' && typeof navigator.mediaDevices?.getDisplayMedia === 'function';
}

/**
 * Asks the person to share the entire screen (the browser's picker opens on the screens, windows and tabs are
 * kept out where the browser allows it). Resolves the stream of an entire screen; rejects with a
 * ScreenShareError otherwise (a window or a tab, a refusal, a browser without screen sharing).
 */
export async function shareEntireScreen(): Promise<MediaStream> {
  if (!canShareScreen()) throw new ScreenShareError('unsupported');
  let stream: MediaStream;
  try {
    stream = await navigator.mediaDevices.getDisplayMedia({
      video: { displaySurface: 'monitor', frameRate: { ideal: SCREEN_FRAME_RATE, max: SCREEN_FRAME_RATE } },
      audio: false,
      // Chrome's hints: offer the screens, keep this tab and "switch to this tab" out of the picker.
      ...({
        monitorTypeSurfaces: 'include',
        selfBrowserSurface: 'exclude',
        surfaceSwitching: 'exclude',
        preferCurrentTab: false,
      } as object),
    } as DisplayMediaStreamOptions);
  } catch (e) {
    const name = e instanceof DOMException || e instanceof Error ? e.name : '';
    throw new ScreenShareError(
      name === 'NotAllowedError' ? 'denied' : name === 'NotSupportedError' ? 'unsupported' : 'failed',
    );
  }
  const track = stream.getVideoTracks()[0];
  const surface = (track?.getSettings() as { displaySurface?: string } | undefined)?.displaySurface;
  // A browser that names no surface (older Safari shares only whole screens) is taken at its word.
  if (!track || (surface !== undefined && surface !== 'monitor')) {
    stream.getTracks().forEach((t) => t.stop());
    throw new ScreenShareError('notEntireScreen');
  }
  // Text on a screen should stay sharp rather than move smoothly (the encoders honour the hint).
  if ('contentHint' in track) track.contentHint = 'detail';
  return stream;
}

/** What the track reports as shared (`monitor` for an entire screen), or undefined when it does not say. */
export function displaySurfaceOf(stream: MediaStream): string | undefined {
  const track = stream.getVideoTracks()[0];
  return (track?.getSettings() as { displaySurface?: string } | undefined)?.displaySurface;
}

/**
 * Calls `onEnded` once when the share stops: the browser's "stop sharing", the screen gone, or the track ended
 * any other way. Returns the unsubscribe function.
 */
export function onShareEnded(stream: MediaStream, onEnded: () => void): () => void {
  const track = stream.getVideoTracks()[0];
  if (!track) return () => undefined;
  let done = false;
  const fire = () => {
    if (done) return;
    done = true;
    track.removeEventListener('ended', fire);
    onEnded();
  };
  if (track.readyState === 'ended') {
    queueMicrotask(fire);
    return () => undefined;
  }
  track.addEventListener('ended', fire);
  return () => {
    done = true;
    track.removeEventListener('ended', fire);
  };
}
