import { spawn } from 'node:child_process';
import type { ANALYSIS_TYPES } from '../../../../contract/management';
import { cosine } from './face-math';
import type { DetectedFace, IdentityEngine } from './identity';
import type { AiSettings } from './settings';
import { VAD_SAMPLE_RATE, type SileroVad } from './vad';

/** An analysis type of spec §1. */
export type AnalysisType = (typeof ANALYSIS_TYPES)[number];

/**
 * The analysis methods of spec §9 (analysis_status 1–5): every 2 s, every 3 s, every 5 s, every minute, and
 * 10 frames 2 s apart at the start of every 3 minutes.
 */
export const ANALYSIS_METHODS = {
  1: { stepMs: 2000, burst: null },
  2: { stepMs: 3000, burst: null },
  3: { stepMs: 5000, burst: null },
  4: { stepMs: 60000, burst: null },
  5: { stepMs: 2000, burst: { periodMs: 180000, count: 10 } },
} as const;
export type AnalysisMethod = keyof typeof ANALYSIS_METHODS;

/** Whether a frame at `tMs` is examined under `method` (the decoder yields one frame per `stepMs`). */
export function isSampled(method: AnalysisMethod, tMs: number): boolean {
  const m = ANALYSIS_METHODS[method];
  if (!m.burst) return true;
  return tMs % m.burst.periodMs < m.burst.count * m.stepMs;
}

/** One examined moment: when, for how long it stands, whether the condition held and how sure. */
export interface Sample {
  tMs: number;
  durMs: number;
  hit: boolean;
  confidence: number;
}

/** A flagged interval (an AI marking before it is stored). */
export interface Flag {
  type: AnalysisType;
  startMs: number;
  endMs: number;
  confidence: number;
  /** 1–100: the interval's confidence as a percentage (summed into tests.ai_total_score). */
  score: number;
}

/**
 * Merges samples into flags: the condition must hold in at least `minSamples` consecutive samples and for at
 * least `minDurationMs`; a gap of at most `maxGapMs` between hits (a sample that missed) does not split it.
 * Confidence is the mean over the hits.
 */
export function intervalsOf(
  type: AnalysisType,
  samples: readonly Sample[],
  rule: { minSamples: number; minDurationMs: number; maxGapMs?: number },
): Flag[] {
  const out: Flag[] = [];
  let cur: { start: number; end: number; n: number; conf: number } | null = null;
  const close = () => {
    if (cur && cur.n >= rule.minSamples && cur.end - cur.start >= rule.minDurationMs) {
      const confidence = Math.round((cur.conf / cur.n) * 1000) / 1000;
      out.push({
        type,
        startMs: cur.start,
        endMs: cur.end,
        confidence,
        score: Math.max(1, Math.min(100, Math.round(confidence * 100))),
      });
    }
    cur = null;
  };
  for (const s of [...samples].sort((a, b) => a.tMs - b.tMs)) {
    if (!s.hit) {
      if (cur && s.tMs - cur.end >= (rule.maxGapMs ?? 0)) close();
      continue;
    }
    if (cur && s.tMs - cur.end <= (rule.maxGapMs ?? 0)) {
      cur.end = s.tMs + s.durMs;
      cur.n += 1;
      cur.conf += s.confidence;
    } else {
      close();
      cur = { start: s.tMs, end: s.tMs + s.durMs, n: 1, conf: s.confidence };
    }
  }
  close();
  return out;
}

/** What one frame showed, for the three video analyses. */
export interface FrameResult {
  tMs: number;
  faces: DetectedFace[];
}

/**
 * Per-frame conditions (ai-feasibility.md §5, §6.5): people_num — more than one face; other_person — a
 * well-posed face whose best cosine to the registered head shot is below the threshold; eye_rot — the
 * examinee's face turned beyond the yaw/pitch limits or eyes looking sideways (iris offset), or no face at all (a ~45° profile is often not
 * detected, so "no face" must count as looking away).
 */
export function frameSamples(
  frames: readonly FrameResult[],
  stepMs: number,
  head: number[] | null,
  s: AiSettings['analysis'],
): Record<'people_num' | 'other_person' | 'eye_rot', Sample[]> {
  const out = { people_num: [] as Sample[], other_person: [] as Sample[], eye_rot: [] as Sample[] };
  for (const fr of frames) {
    const faces = fr.faces.filter((f) => f.score >= s.faceScore).sort((a, b) => b.score - a.score);
    const base = { tMs: fr.tMs, durMs: stepMs };
    out.people_num.push({ ...base, hit: faces.length > 1, confidence: faces[1]?.score ?? 0 });

    const sims = faces.map((f) => (head && f.embedding ? cosine(f.embedding, head) : null));
    let other: { conf: number } | null = null;
    faces.forEach((f, i) => {
      const c = sims[i];
      if (c === null || c === undefined || c >= s.otherPersonCosine || Math.abs(f.yaw) > s.maxYaw) return;
      const conf = f.score * Math.min(1, 0.5 + (s.otherPersonCosine - c) / s.otherPersonCosine);
      if (!other || conf > other.conf) other = { conf };
    });
    out.other_person.push({
      ...base,
      hit: other !== null,
      confidence: (other as { conf: number } | null)?.conf ?? 0,
    });

    // The examinee is the face most like the head shot, else the largest face.
    let me: DetectedFace | undefined;
    if (faces.length) {
      let best = -2;
      faces.forEach((f, i) => {
        const key = sims[i] ?? f.box[2] * f.box[3] * 1e-9;
        if (key > best) {
          best = key;
          me = f;
        }
      });
    }
    const m = me as DetectedFace | undefined;
    if (!m) out.eye_rot.push({ ...base, hit: true, confidence: 0.6 });
    else {
      const turned =
        Math.abs(m.yaw) > s.maxYaw ||
        Math.abs(m.pitch) > s.maxPitch ||
        (m.gaze !== null && m.gaze !== undefined && m.gaze > s.maxGaze);
      out.eye_rot.push({ ...base, hit: turned, confidence: turned ? m.score : 0 });
    }
  }
  return out;
}

/** Seconds of speech (Silero VAD) as samples for the voice analysis. */
export function voiceSamples(
  perSecond: readonly { fraction: number; mean: number }[],
  s: AiSettings['analysis'],
): Sample[] {
  return perSecond.map((p, i) => ({
    tMs: i * 1000,
    durMs: 1000,
    hit: p.fraction > s.voiceFraction,
    confidence: p.mean,
  }));
}

/** Options of one recording's analysis. */
export interface AnalyseOptions {
  ffmpegPath: string;
  method: AnalysisMethod;
  types: readonly AnalysisType[];
  /** Embedding of the registered head shot, or null (then other_person cannot be judged). */
  head: number[] | null;
  settings: AiSettings['analysis'];
  signal?: AbortSignal;
  onProgress?: (doneMs: number) => void;
}

/** What an analysis produced. */
export interface AnalysisOutput {
  flags: Flag[];
  frames: number;
  durationMs: number;
  audio: boolean;
  notes: string[];
}

const FRAME_W = 640;

/**
 * Analyses one recording file: frames decoded by ffmpeg at the method's rate (scaled and padded to a fixed
 * size, so a mid-stream resolution change cannot break the raw stream), faces detected with Human, and the
 * audio decoded to 16 kHz mono for Silero. Times are milliseconds from the start of the recording.
 */
export async function analyseFile(
  file: string,
  engine: IdentityEngine,
  vad: SileroVad | null,
  o: AnalyseOptions,
): Promise<AnalysisOutput> {
  const want = new Set(o.types);
  const notes: string[] = [];
  const flags: Flag[] = [];
  const m = ANALYSIS_METHODS[o.method];
  const rule = { minSamples: o.settings.minSamples, minDurationMs: o.settings.minDurationMs, maxGapMs: 0 };
  let frames = 0;
  let durationMs = 0;

  if (want.has('people_num') || want.has('other_person') || want.has('eye_rot')) {
    const w = Math.min(FRAME_W, o.settings.frameWidth);
    const h = Math.round((w * 3) / 4 / 2) * 2;
    const results: FrameResult[] = [];
    const fps = `fps=1000/${m.stepMs}`;
    const vf = `${fps},scale=${w}:${h}:force_original_aspect_ratio=decrease,pad=${w}:${h}:(ow-iw)/2:(oh-ih)/2`;
    let index = 0;
    await readRaw(
      o.ffmpegPath,
      ['-i', file, '-an', '-vf', vf, '-f', 'rawvideo', '-pix_fmt', 'rgb24', 'pipe:1'],
      w * h * 3,
      async (frame) => {
        const tMs = index++ * m.stepMs;
        durationMs = tMs + m.stepMs;
        if (!isSampled(o.method, tMs)) return;
        results.push({ tMs, faces: await engine.detectRgb(frame, w, h, 'low') });
        o.onProgress?.(tMs);
      },
      o.signal,
    );
    frames = results.length;
    if (want.has('other_person') && !o.head) notes.push('other_person skipped: no registered head shot');
    const samples = frameSamples(results, m.stepMs, o.head, o.settings);
    for (const t of ['people_num', 'other_person', 'eye_rot'] as const) {
      if (!want.has(t) || (t === 'other_person' && !o.head)) continue;
      flags.push(...intervalsOf(t, samples[t], rule));
    }
  }

  let audio = false;
  if (want.has('voice')) {
    if (!vad) notes.push('voice skipped: no VAD model');
    else {
      const chunks: Buffer[] = [];
      const ok = await readRaw(
        o.ffmpegPath,
        ['-i', file, '-vn', '-ac', '1', '-ar', String(VAD_SAMPLE_RATE), '-f', 'f32le', 'pipe:1'],
        0,
        async (b) => void chunks.push(Buffer.from(b)),
        o.signal,
        true,
      );
      const bytes = Buffer.concat(chunks);
      if (!ok || bytes.length < 4) notes.push('voice skipped: no audio track');
      else {
        audio = true;
        const pcm = new Float32Array(bytes.buffer, bytes.byteOffset, Math.floor(bytes.length / 4));
        durationMs = Math.max(durationMs, Math.round((pcm.length / VAD_SAMPLE_RATE) * 1000));
        const perSecond = await vad.speechPerSecond(pcm.slice(), o.settings.speechProbability);
        // Speech has short pauses between words: a 1 s gap does not end a voice interval.
        flags.push(...intervalsOf('voice', voiceSamples(perSecond, o.settings), { ...rule, maxGapMs: 1000 }));
      }
    }
  }
  flags.sort((a, b) => a.startMs - b.startMs || a.type.localeCompare(b.type));
  return { flags, frames, durationMs, audio, notes };
}

/**
 * Runs ffmpeg and hands its stdout to `onChunk` in chunks of `size` bytes (or as it comes with size 0),
 * waiting for each before reading on. Resolves true on success; with `allowNoStream`, false when the input
 * has no such stream; rejects on other ffmpeg errors.
 */
function readRaw(
  ffmpeg: string,
  args: string[],
  size: number,
  onChunk: (b: Uint8Array) => Promise<void>,
  signal?: AbortSignal,
  allowNoStream = false,
): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const child = spawn(ffmpeg, ['-hide_banner', '-loglevel', 'error', '-nostdin', ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
      signal,
    });
    let err = '';
    child.stderr.on('data', (d: Buffer) => {
      if (err.length < 4000) err += d.toString();
    });
    let pending: Buffer = Buffer.alloc(0);
    let chain = Promise.resolve();
    let failed: unknown = null;
    child.stdout.on('data', (d: Buffer) => {
      pending = pending.length ? Buffer.concat([pending, d]) : d;
      const parts: Uint8Array[] = [];
      if (size === 0) {
        parts.push(pending);
        pending = Buffer.alloc(0);
      } else {
        while (pending.length >= size) {
          parts.push(pending.subarray(0, size));
          pending = pending.subarray(size);
        }
      }
      if (!parts.length) return;
      child.stdout.pause();
      chain = chain
        .then(async () => {
          for (const p of parts) await onChunk(p);
        })
        .catch((e: unknown) => {
          failed ??= e;
          child.kill('SIGKILL');
        })
        .finally(() => child.stdout.resume());
    });
    child.on('error', (e) => reject(e));
    child.on('close', (code) => {
      void chain.then(() => {
        if (failed) reject(failed as Error);
        else if (code === 0) resolve(true);
        else if (
          allowNoStream &&
          /does not contain any stream|matches no streams|Output file .* does not contain/i.test(err)
        )
          resolve(false);
        else reject(new Error(`ffmpeg exited with ${code}: ${err.trim().slice(-500)}`));
      });
    });
  });
}
