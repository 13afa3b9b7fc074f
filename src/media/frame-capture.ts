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

/** A live still of the examinee's camera, small enough to send every few seconds. */
export interface LiveStill {
  /** JPEG as base64 (no data: prefix). */
  image: string;
  width: number;
  height: number;
  /** `performance.now()` when it was taken (the age sent with it is measured on this clock). */
  takenAt: number;
}

/** Longest side of a live still (the detector scales frames to 640 px anyway). */
export const LIVE_STILL_MAX_SIDE = 640;
/** Largest live still in bytes; a bigger JPEG is encoded again at a lower quality, then smaller. */
export const LIVE_STILL_MAX_BYTES = 120 * 1024;

type FrameSource = { source: CanvasImageSource; width: number; height: number; done(): void };

interface ImageCaptureLike {
  grabFrame(): Promise<ImageBitmap>;
}
type ImageCaptureCtor = new (track: MediaStreamTrack) => ImageCaptureLike;

/** The current frame of the stream's camera track: ImageCapture where the browser has it, else a video element. */
async function currentFrame(stream: MediaStream): Promise<FrameSource | null> {
  const track = stream.getVideoTracks()[0];
  if (!track || track.readyState !== 'live') return null;
  const IC = (globalThis as { ImageCapture?: ImageCaptureCtor }).ImageCapture;
  if (IC) {
    try {
      const bmp = await new IC(track).grabFrame();
      return { source: bmp, width: bmp.width, height: bmp.height, done: () => bmp.close() };
    } catch {
      // Falls back to a video element below (e.g. the track is muted for a moment).
    }
  }
  const video = document.createElement('video');
  video.muted = true;
  video.playsInline = true;
  video.srcObject = stream;
  try {
    await video.play();
  } catch {
    // Muted playback normally works; a frame may still be drawable.
  }
  if (!video.videoWidth || !video.videoHeight) {
    video.srcObject = null;
    return null;
  }
  return {
    source: video,
    width: video.videoWidth,
    height: video.videoHeight,
    done: () => {
      video.pause();
      video.srcObject = null;
    },
  };
}

/**
 * Takes a still of the stream's camera as a small JPEG: at most LIVE_STILL_MAX_SIDE px on its longest side and
 * LIVE_STILL_MAX_BYTES (lower quality first, then a smaller size). Null when there is no frame.
 */
export async function captureLiveStill(
  stream: MediaStream,
  now: () => number = () => performance.now(),
): Promise<LiveStill | null> {
  const frame = await currentFrame(stream);
  if (!frame) return null;
  const takenAt = now();
  try {
    let scale = Math.min(1, LIVE_STILL_MAX_SIDE / Math.max(frame.width, frame.height));
    for (let attempt = 0; attempt < 4; attempt++) {
      const width = Math.max(1, Math.round(frame.width * scale));
      const height = Math.max(1, Math.round(frame.height * scale));
      const canvas = document.createElement('canvas');
      canvas.width = width;
      canvas.height = height;
      const ctx = canvas.getContext('2d');
      if (!ctx) return null;
      ctx.drawImage(frame.source, 0, 0, width, height);
      for (const quality of [0.7, 0.5]) {
        const dataUrl = canvas.toDataURL('image/jpeg', quality);
        const comma = dataUrl.indexOf(',');
        if (comma < 0 || !dataUrl.startsWith('data:image/jpeg')) return null;
        const image = dataUrl.slice(comma + 1);
        if ((image.length * 3) / 4 <= LIVE_STILL_MAX_BYTES) return { image, width, height, takenAt };
      }
      scale *= 0.7;
    }
    return null;
  } catch {
    return null;
  } finally {
    frame.done();
  }
}
