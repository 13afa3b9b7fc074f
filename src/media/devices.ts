import { LOCAL_STREAM_ID, getStream, registerStream } from './stream-registry';

/** Why a device could not be used (from the getUserMedia DOMException). */
export type DeviceErrorCode = 'denied' | 'notFound' | 'inUse' | 'unsupported' | 'unknown';

/** Result of asking for one kind of device. */
export type DeviceResult = { ok: true } | { ok: false; code: DeviceErrorCode };

/** Maps a getUserMedia failure to a {@link DeviceErrorCode}. */
export function deviceErrorCode(e: unknown): DeviceErrorCode {
  const name = (e as { name?: string } | null)?.name ?? '';
  if (name === 'NotAllowedError' || name === 'SecurityError' || name === 'PermissionDeniedError')
    return 'denied';
  if (name === 'NotFoundError' || name === 'OverconstrainedError' || name === 'DevicesNotFoundError')
    return 'notFound';
  if (name === 'NotReadableError' || name === 'TrackStartError' || name === 'AbortError') return 'inUse';
  if (name === 'TypeError') return 'unsupported';
  return 'unknown';
}

/** Camera constraints: 640×480 keeps the SDP and the encoder small (media-stack.md §5). */
export const VIDEO_CONSTRAINTS: MediaTrackConstraints = { width: { ideal: 640 }, height: { ideal: 480 } };

/**
 * Opens the camera and the microphone separately (so each gets its own allowed/denied answer, spec §4
 * device permission) and registers the combined stream as {@link LOCAL_STREAM_ID}.
 *
 * @returns the outcome per device.
 */
export async function acquireLocalMedia(): Promise<{ camera: DeviceResult; microphone: DeviceResult }> {
  const md = typeof navigator !== 'undefined' ? navigator.mediaDevices : undefined;
  if (!md?.getUserMedia) {
    return { camera: { ok: false, code: 'unsupported' }, microphone: { ok: false, code: 'unsupported' } };
  }
  const existing = getStream(LOCAL_STREAM_ID);
  const live = (kind: 'audio' | 'video') =>
    existing?.getTracks().find((t) => t.kind === kind && t.readyState === 'live') ?? null;
  const tracks: MediaStreamTrack[] = [];
  const ask = async (kind: 'audio' | 'video'): Promise<DeviceResult> => {
    const have = live(kind);
    if (have) {
      tracks.push(have);
      return { ok: true };
    }
    try {
      const s = await md.getUserMedia(kind === 'video' ? { video: VIDEO_CONSTRAINTS } : { audio: true });
      tracks.push(...s.getTracks());
      return { ok: true };
    } catch (e) {
      return { ok: false, code: deviceErrorCode(e) };
    }
  };
  const camera = await ask('video');
  const microphone = await ask('audio');
  if (tracks.length > 0) {
    const same =
      existing &&
      tracks.every((t) => existing.getTracks().includes(t)) &&
      existing.getTracks().length === tracks.length;
    if (!same) registerStream(LOCAL_STREAM_ID, new MediaStream(tracks));
  }
  return { camera, microphone };
}

/** The phone camera's stream id (the phone's page: its camera, no microphone). */
export const PHONE_STREAM_ID = 'phone-camera';

/**
 * The phone's page: opens the rear (`environment`) or front (`user`) camera and registers it as
 * {@link PHONE_STREAM_ID}, replacing (and stopping) the one before. Video only: the examinee's computer already
 * sends and records the room's sound, and a second microphone would echo at the checker's.
 *
 * @returns the new video track, or the reason it could not be opened.
 */
export async function acquirePhoneCamera(
  facing: 'environment' | 'user',
): Promise<{ ok: true; track: MediaStreamTrack } | { ok: false; code: DeviceErrorCode }> {
  const md = typeof navigator !== 'undefined' ? navigator.mediaDevices : undefined;
  if (!md?.getUserMedia) return { ok: false, code: 'unsupported' };
  // A phone cannot keep two cameras open: the one in use is stopped before the other opens.
  getStream(PHONE_STREAM_ID)
    ?.getTracks()
    .forEach((t) => t.stop());
  try {
    const s = await md.getUserMedia({
      video: { ...VIDEO_CONSTRAINTS, facingMode: { ideal: facing } },
      audio: false,
    });
    const track = s.getVideoTracks()[0];
    if (!track) return { ok: false, code: 'notFound' };
    registerStream(PHONE_STREAM_ID, s);
    return { ok: true, track };
  } catch (e) {
    return { ok: false, code: deviceErrorCode(e) };
  }
}

/**
 * Captures one still of the local camera as JPEG (canvas), for the AI identity check.
 *
 * @returns base64 without the data: prefix, or null when no camera frame is available.
 */
export async function captureStill(
  streamId: string = LOCAL_STREAM_ID,
  quality = 0.85,
): Promise<{ image: string; contentType: 'image/jpeg'; dataUrl: string } | null> {
  const stream = getStream(streamId);
  if (!stream || stream.getVideoTracks().length === 0) return null;
  const video = document.createElement('video');
  video.muted = true;
  video.playsInline = true;
  video.srcObject = stream;
  try {
    await video.play();
  } catch {
    // Muted playback normally works; a frame may still be drawable.
  }
  const w = video.videoWidth || 640;
  const h = video.videoHeight || 480;
  const canvas = document.createElement('canvas');
  canvas.width = w;
  canvas.height = h;
  const ctx = canvas.getContext('2d');
  if (!ctx) return null;
  ctx.drawImage(video, 0, 0, w, h);
  video.pause();
  video.srcObject = null;
  const dataUrl = canvas.toDataURL('image/jpeg', quality);
  const comma = dataUrl.indexOf(',');
  if (comma < 0 || !dataUrl.startsWith('data:image/jpeg')) return null;
  return { image: dataUrl.slice(comma + 1), contentType: 'image/jpeg', dataUrl };
}
