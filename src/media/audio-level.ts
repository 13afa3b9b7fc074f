/** Spec §9: the audio level is sampled in 1024-sample frames. */
export const AUDIO_FRAME_SIZE = 1024;

/**
 * Measures the level of a stream's audio track: an AnalyserNode with 1024-sample frames, read on every
 * animation frame. The level is the RMS of the frame scaled to 0–100.
 *
 * @param stream - a stream with an audio track.
 * @param onLevel - called with the level (0–100) about 10 times a second.
 * @returns stop: disconnects and closes the audio context.
 */
export function startAudioLevelMeter(stream: MediaStream, onLevel: (level: number) => void): () => void {
  const Ctx =
    (globalThis as { AudioContext?: typeof AudioContext }).AudioContext ??
    (globalThis as { webkitAudioContext?: typeof AudioContext }).webkitAudioContext;
  if (!Ctx || stream.getAudioTracks().length === 0) return () => undefined;
  const ctx = new Ctx();
  const source = ctx.createMediaStreamSource(stream);
  const analyser = ctx.createAnalyser();
  analyser.fftSize = AUDIO_FRAME_SIZE;
  source.connect(analyser);
  const frame = new Float32Array(AUDIO_FRAME_SIZE);
  let stopped = false;
  let last = 0;
  const tick = (now: number) => {
    if (stopped) return;
    if (now - last >= 100) {
      last = now;
      analyser.getFloatTimeDomainData(frame);
      onLevel(levelOf(frame));
    }
    requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
  void ctx.resume().catch(() => undefined);
  return () => {
    stopped = true;
    source.disconnect();
    void ctx.close().catch(() => undefined);
  };
}

/** RMS of a frame of samples in [-1, 1], mapped to an integer 0–100 (×4 gain so speech reaches the top). */
export function levelOf(frame: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < frame.length; i += 1) sum += (frame[i] ?? 0) * (frame[i] ?? 0);
  const rms = Math.sqrt(sum / Math.max(1, frame.length));
  return Math.max(0, Math.min(100, Math.round(rms * 400)));
}
