import type { AnalysisType } from './analysis';
import { cosine } from './face-math';
import type { IdentityEngine } from './identity';
import type { Priority } from './priority-lock';
import type { CaptureThresholds } from './settings';
import type { CaptureFlag } from '../../../../contract/capture';

/** One face in a live still, reduced to what the flag rules use. */
export interface StillFace {
  score: number;
  /** Box side in pixels (the smaller of width and height). */
  side: number;
  area: number;
  yaw: number;
  pitch: number;
  gaze: number | null;
  /** Cosine of its embedding to the head shot's, or null (no head shot, no embedding). */
  cosine: number | null;
}

/** What the detector saw in one still. */
export interface StillDetection {
  width: number;
  height: number;
  /** Every detection the model reported (minConfidence 0.3), best first. */
  faces: StillFace[];
  /** A head shot was given and had a face: other_person could be judged. */
  head: boolean;
}

/**
 * Detects the faces of one still (decoded, EXIF-rotated, at most 1024 px) and compares each with the head
 * shot. `priority`: medium for AI realtime (a checker waits), low after the exam; identity checks stay ahead.
 */
export async function detectStill(
  engine: IdentityEngine,
  image: Buffer,
  headShot: Buffer | null,
  priority: Priority,
): Promise<StillDetection> {
  const head = headShot ? await engine.embeddingOf(headShot) : null;
  const { faces, width, height } = await engine.detectImage(image, priority);
  return {
    width,
    height,
    head: head !== null,
    faces: faces
      .map((f) => ({
        score: round3(f.score),
        side: Math.round(Math.min(f.box[2], f.box[3])),
        area: Math.round(f.box[2] * f.box[3]),
        yaw: f.yaw,
        pitch: f.pitch,
        gaze: f.gaze ?? null,
        cosine: head && f.embedding ? round3(cosine(f.embedding, head)) : null,
      }))
      .sort((a, b) => b.score - a.score),
  };
}

/** A flag one still raises. */
export interface StillFlag {
  flag: CaptureFlag;
  /** The analysis type it is stored and scored as (what managers filter by). */
  analysisType: AnalysisType;
  /** 0.5–0.99 for no face; otherwise the detector's confidence in the face it is about. */
  confidence: number;
}

/**
 * The flags of one still under a sitting's thresholds and analysis types (start-up selected_analysis_types):
 * - no face (eye_rot, as the recording analysis counts it): no detection at or above the face score; the
 *   fainter the best detection, the surer;
 * - several people (people_num): two or more faces; as sure as the second face;
 * - another person (other_person, needs a head shot): a face turned no further than the yaw limit whose
 *   cosine to the head shot is below the threshold (a turned face's embedding is not a fair comparison);
 * - looking away (eye_rot): the examinee's face (the one most like the head shot, else the largest) turned
 *   beyond the yaw or pitch limit or with the eyes sideways.
 */
export function stillFlags(
  d: StillDetection,
  t: CaptureThresholds,
  types: readonly AnalysisType[],
): StillFlag[] {
  const want = new Set(types);
  const faces = d.faces.filter((f) => f.score >= t.faceScore);
  const out: StillFlag[] = [];
  if (faces.length === 0) {
    if (want.has('eye_rot')) {
      const best = d.faces[0]?.score ?? 0;
      out.push({ flag: 'no_face', analysisType: 'eye_rot', confidence: clamp(round3(1 - best), 0.5, 0.99) });
    }
    return out;
  }
  if (faces.length > 1 && want.has('people_num'))
    out.push({ flag: 'several_people', analysisType: 'people_num', confidence: faces[1]!.score });
  if (d.head && want.has('other_person')) {
    let conf = 0;
    for (const f of faces) {
      if (f.cosine === null || f.cosine >= t.otherPersonCosine || Math.abs(f.yaw) > t.maxYaw) continue;
      const c = f.score * Math.min(1, 0.5 + (t.otherPersonCosine - f.cosine) / t.otherPersonCosine);
      conf = Math.max(conf, c);
    }
    if (conf > 0) out.push({ flag: 'other_person', analysisType: 'other_person', confidence: round3(conf) });
  }
  if (want.has('eye_rot')) {
    const me = faces.reduce((a, b) =>
      (b.cosine ?? -2) > (a.cosine ?? -2) || (b.cosine === a.cosine && b.area > a.area) ? b : a,
    );
    const turned =
      Math.abs(me.yaw) > t.maxYaw ||
      Math.abs(me.pitch) > t.maxPitch ||
      (me.gaze !== null && me.gaze > t.maxGaze);
    if (turned) out.push({ flag: 'looking_away', analysisType: 'eye_rot', confidence: me.score });
  }
  return out;
}

function clamp(x: number, lo: number, hi: number): number {
  return Math.min(hi, Math.max(lo, x));
}

function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}
