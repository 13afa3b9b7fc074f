import { SENSITIVITIES, type Sensitivity } from '../../../../contract/capture';

/**
 * Thresholds and sizes of the offline AI. Every number comes from
 * `shared/research/ai-feasibility.md` (§3.1 quality gate, §3.2 cosine bands, §5/§6 flag rules) and is
 * provisional: the same-person pairs there were augmented copies of one photo, so each one can be overridden
 * from the environment (AI_* variables) after calibration on real photos.
 */
export interface AiSettings {
  /** AI_WORKERS: analysis/identity worker processes; default = CPU cores, 0 turns the real AI off. */
  workers: number;
  face: {
    /** Minimum detector score of the one face (§3.1: 0.8). */
    minScore: number;
    /** Faces below this score are ignored when counting (§3.1: no false positives at 0.3; we use 0.5). */
    countScore: number;
    /** Smallest face box side in pixels (§3.1: 100). */
    minSide: number;
    /** Largest |yaw| and |pitch| in degrees (§3.1: 25). */
    maxYaw: number;
    maxPitch: number;
    /** Variance of the Laplacian on a 256 px grey copy (§3.1: sharp ≥ 240, blurred 8; gate 100). */
    minSharpness: number;
    /** Mean luma 0–255 (§3.1: 40). */
    minLuma: number;
  };
  match: {
    /** Cosine of the faceres embeddings at or above which two faces are the same person (§3.2: 0.72). */
    same: number;
    /** Cosine below which they are different people; between the two is "uncertain" (§3.2: 0.60). */
    different: number;
  };
  analysis: {
    /** Detector score for counting faces in a frame (§5: minConfidence 0.5). */
    faceScore: number;
    /** other_person: a face whose best cosine to the head shot is below this (§6: 0.6). */
    otherPersonCosine: number;
    /** eye_rot: |yaw| or |pitch| above these degrees (§6: 30 / 25). */
    maxYaw: number;
    maxPitch: number;
    /** eye_rot: a frontal face whose eyes look sideways, iris offset above this fraction of eye width. */
    maxGaze: number;
    /** voice: speech fraction of a second above this (§6: 0.2); Silero probability threshold per window. */
    voiceFraction: number;
    speechProbability: number;
    /** A flag needs the condition in this many consecutive samples and for at least this long. */
    minSamples: number;
    minDurationMs: number;
    /** Frames are scaled to at most this width before detection (speed; §5 used 640×480). */
    frameWidth: number;
  };
  /** Thresholds of the live stills (start-up capture_type 1/2) per sitting sensitivity (start-up ai_sensitivity). */
  capture: Record<Sensitivity, CaptureThresholds>;
}

/** What makes a still a flag, and which flags alert the checker, at one sensitivity. */
export interface CaptureThresholds {
  /** A detection counts as a face at or above this score (no face, several people). */
  faceScore: number;
  /** Looking away: the examinee's face turned beyond these degrees, or eyes sideways beyond this offset. */
  maxYaw: number;
  maxPitch: number;
  maxGaze: number;
  /** Another person: a frontal face whose cosine to the head shot is below this. */
  otherPersonCosine: number;
  /** A flag at or above this confidence alerts the checker (sound, notification, title). */
  alertConfidence: number;
}

const CAPTURE_KEYS: Record<string, keyof CaptureThresholds> = {
  face: 'faceScore',
  yaw: 'maxYaw',
  pitch: 'maxPitch',
  gaze: 'maxGaze',
  cosine: 'otherPersonCosine',
  alert: 'alertConfidence',
};

/**
 * Applies `AI_SENSITIVITY_<LEVEL>` (e.g. `yaw=20,pitch=20,cosine=0.65,alert=0.5`) to a level's defaults; an
 * unknown key or a value that is not a number stops the server with the variable's name.
 */
function captureLevel(
  env: NodeJS.ProcessEnv,
  level: Sensitivity,
  dflt: CaptureThresholds,
): CaptureThresholds {
  const name = `AI_SENSITIVITY_${level.toUpperCase()}`;
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return dflt;
  const out = { ...dflt };
  for (const part of raw.split(',')) {
    const [k, v] = part.split('=').map((x) => x.trim());
    const key = CAPTURE_KEYS[k ?? ''];
    const n = Number(v);
    if (!key || v === undefined || v === '' || !Number.isFinite(n)) {
      throw new Error(
        `${name}: "${part.trim()}" is not <key>=<number> with key one of ${Object.keys(CAPTURE_KEYS).join(', ')}`,
      );
    }
    out[key] = n;
  }
  return out;
}

function num(env: NodeJS.ProcessEnv, key: string, dflt: number): number {
  const raw = env[key];
  if (raw === undefined || raw.trim() === '') return dflt;
  const v = Number(raw);
  return Number.isFinite(v) ? v : dflt;
}

/** AI settings from the environment, defaulting to the research note's values. */
export function aiSettings(env: NodeJS.ProcessEnv = process.env, cores = 2): AiSettings {
  const different = num(env, 'AI_MATCH_DIFFERENT', 0.6);
  const faceScore = num(env, 'AI_ANALYSIS_FACE_SCORE', 0.5);
  // Standard follows the recording analysis's thresholds (so one calibration serves both); strict and relaxed
  // move every limit by a fixed step around it (docs/ai-calibration.md "Live stills").
  const standard: CaptureThresholds = {
    faceScore,
    maxYaw: num(env, 'AI_EYE_ROT_YAW', 30),
    maxPitch: num(env, 'AI_EYE_ROT_PITCH', 25),
    maxGaze: num(env, 'AI_EYE_ROT_GAZE', 0.12),
    otherPersonCosine: num(env, 'AI_OTHER_PERSON_COSINE', 0.6),
    alertConfidence: 0.7,
  };
  const strict: CaptureThresholds = {
    faceScore,
    maxYaw: standard.maxYaw - 10,
    maxPitch: standard.maxPitch - 5,
    maxGaze: round2(standard.maxGaze * 0.75),
    otherPersonCosine: round2(standard.otherPersonCosine + 0.05),
    alertConfidence: 0.5,
  };
  const relaxed: CaptureThresholds = {
    faceScore,
    maxYaw: standard.maxYaw + 10,
    maxPitch: standard.maxPitch + 10,
    maxGaze: round2(standard.maxGaze * 1.5),
    otherPersonCosine: round2(standard.otherPersonCosine - 0.1),
    alertConfidence: 0.85,
  };
  return {
    workers: Math.max(0, Math.trunc(num(env, 'AI_WORKERS', cores))),
    face: {
      minScore: num(env, 'AI_FACE_MIN_SCORE', 0.8),
      countScore: num(env, 'AI_FACE_COUNT_SCORE', 0.5),
      minSide: num(env, 'AI_FACE_MIN_SIDE', 100),
      maxYaw: num(env, 'AI_FACE_MAX_YAW', 25),
      maxPitch: num(env, 'AI_FACE_MAX_PITCH', 25),
      minSharpness: num(env, 'AI_FACE_MIN_SHARPNESS', 100),
      minLuma: num(env, 'AI_FACE_MIN_LUMA', 40),
    },
    match: { same: Math.max(different, num(env, 'AI_MATCH_SAME', 0.72)), different },
    analysis: {
      faceScore,
      otherPersonCosine: num(env, 'AI_OTHER_PERSON_COSINE', 0.6),
      maxYaw: num(env, 'AI_EYE_ROT_YAW', 30),
      maxPitch: num(env, 'AI_EYE_ROT_PITCH', 25),
      maxGaze: num(env, 'AI_EYE_ROT_GAZE', 0.12),
      voiceFraction: num(env, 'AI_VOICE_FRACTION', 0.2),
      speechProbability: num(env, 'AI_SPEECH_PROBABILITY', 0.5),
      minSamples: Math.max(1, Math.trunc(num(env, 'AI_FLAG_MIN_SAMPLES', 2))),
      minDurationMs: Math.max(0, num(env, 'AI_FLAG_MIN_DURATION_MS', 2000)),
      frameWidth: Math.max(160, Math.trunc(num(env, 'AI_FRAME_WIDTH', 640))),
    },
    capture: {
      strict: captureLevel(env, 'strict', strict),
      standard: captureLevel(env, 'standard', standard),
      relaxed: captureLevel(env, 'relaxed', relaxed),
    },
  };
}

function round2(x: number): number {
  return Math.round(x * 100) / 100;
}

/** The sensitivity a start-up parameter names; standard for anything else (older URLs have none). */
export function sensitivityOf(v: unknown): Sensitivity {
  return (SENSITIVITIES as readonly unknown[]).includes(v) ? (v as Sensitivity) : 'standard';
}
