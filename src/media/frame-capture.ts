/** A still image taken from a live video. */
export interface CapturedFrame {
  /** `data:image/jpeg;base64,…` */
  dataUrl: string;
  contentType: 'image/jpeg';
  width: number;
  height: number;
  /** Epoch ms of the capture. */
  capturedAt: number;
}

/** Longest side of a captured still; larger frames are scaled down (keeps the upload small). */
export const CAPTURE_MAX_SIDE = 1280;

/**
 * Draws the current frame of `video` on a canvas and encodes it as JPEG. Returns null when the video has no
 * frame yet (videoWidth 0) or the canvas cannot be read.
 */
export function captureJpeg(
  video: HTMLVideoElement,
  quality = 0.85,
  now: () => number = Date.now,
): CapturedFrame | null {
  const w = video.videoWidth;
  const h = video.videoHeight;
  if (!w || !h) return null;
  const scale = Math.min(1, CAPTURE_MAX_SIDE / Math.max(w, h));
  const width = Math.round(w * scale);
  const height = Math.round(h * scale);
  const capturedAt = now();
  try {
    const canvas = document.createElement('canvas');
    canvas.width = width;
    canvas.height = height;
    const ctx = canvas.getContext('2d');
    if (!ctx) return null;
    ctx.drawImage(video, 0, 0, width, height);
    const dataUrl = canvas.toDataURL('image/jpeg', quality);
    if (!dataUrl.startsWith('data:image/jpeg')) return null;
    return { dataUrl, contentType: 'image/jpeg', width, height, capturedAt };
  } catch {
    return null;
  }
}
