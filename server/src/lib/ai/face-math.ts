import sharp from 'sharp';

/** Cosine similarity of two embeddings (ai-feasibility.md §3.2: use cosine, not `human.match.similarity`). */
export function cosine(a: readonly number[], b: readonly number[]): number {
  const n = Math.min(a.length, b.length);
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < n; i++) {
    const x = a[i]!;
    const y = b[i]!;
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  return na > 0 && nb > 0 ? dot / Math.sqrt(na * nb) : 0;
}

/** Same person, different person, or the band in between that neither accepts nor rejects. */
export type MatchClass = 'same' | 'uncertain' | 'different';

/** Classifies a cosine with the `same` and `different` thresholds (same ≥ same; different < different). */
export function classifyCosine(c: number, t: { same: number; different: number }): MatchClass {
  if (c >= t.same) return 'same';
  if (c < t.different) return 'different';
  return 'uncertain';
}

/** Sharpness and brightness of a photo: variance of the Laplacian and mean luma of a 256 px grey copy. */
export interface ImageQuality {
  sharpness: number;
  luma: number;
}

/**
 * Measures an image for the quality gate (§3.1): a blurred photo makes the detector hallucinate faces, so
 * blur is judged on pixels, not on the detector's score.
 */
export async function imageQuality(image: Buffer): Promise<ImageQuality> {
  const { data, info } = await sharp(image)
    .rotate()
    .greyscale()
    .resize(256, 256, { fit: 'inside' })
    .raw()
    .toBuffer({ resolveWithObject: true });
  return measureGrey(data, info.width, info.height);
}

/** Laplacian variance and mean of a single-channel 8-bit image. */
export function measureGrey(px: Uint8Array, w: number, h: number): ImageQuality {
  let sum = 0;
  for (let i = 0; i < w * h; i++) sum += px[i]!;
  let n = 0;
  let m = 0;
  let m2 = 0;
  for (let y = 1; y < h - 1; y++) {
    for (let x = 1; x < w - 1; x++) {
      const i = y * w + x;
      const l = px[i - 1]! + px[i + 1]! + px[i - w]! + px[i + w]! - 4 * px[i]!;
      n++;
      const d = l - m;
      m += d / n;
      m2 += d * (l - m);
    }
  }
  return { sharpness: n > 1 ? m2 / n : 0, luma: w * h ? sum / (w * h) : 0 };
}

/** Radians to degrees, rounded to 0.1. */
export function degrees(rad: number): number {
  return Math.round((rad * 1800) / Math.PI) / 10;
}

/** Face-mesh points of the eye corners (MediaPipe numbering, as Human returns them) and the iris centres. */
const EYES: readonly [number, number][] = [
  [33, 133],
  [362, 263],
];
const IRIS_CENTRES = [468, 473] as const;
const MIN_EYE_PX = 12;

/**
 * How far the eyes look sideways: for each eye, the distance of the iris centre from the midpoint of the eye
 * corners along the corner-to-corner axis, as a fraction of the eye's width (0 = centred, about 0.5 = in
 * the corner), averaged over both eyes; null without iris points (the mesh has 478 points with the iris
 * model) or when an eye is narrower than 12 px. Only the size is used: Human returns one eye's iris mirrored, so per-eye signs disagree.
 * Measured on astronaut.png with the irises moved inside the eye aperture: about 0.04 looking at the camera,
 * 0.13–0.23 with the irises moved by 30 % of the eye width (the detector pulls them towards the centre).
 */
export function irisOffset(mesh: readonly (readonly number[])[] | undefined): number | null {
  if (!mesh || mesh.length < 478) return null;
  let sum = 0;
  for (const [a, b] of EYES) {
    const A = mesh[a]!;
    const B = mesh[b]!;
    const mx = (A[0]! + B[0]!) / 2;
    const my = (A[1]! + B[1]!) / 2;
    const dx = B[0]! - A[0]!;
    const dy = B[1]! - A[1]!;
    const len2 = dx * dx + dy * dy;
    // Below ~12 px of eye width the iris points are guesses: no gaze then.
    if (len2 < MIN_EYE_PX * MIN_EYE_PX) return null;
    // The iris nearest to this eye's midpoint (index conventions differ between model versions).
    const iris = IRIS_CENTRES.map((i) => mesh[i]!).reduce((p, q) =>
      Math.hypot(p[0]! - mx, p[1]! - my) <= Math.hypot(q[0]! - mx, q[1]! - my) ? p : q,
    );
    sum += Math.abs(((iris[0]! - mx) * dx + (iris[1]! - my) * dy) / len2);
  }
  return Math.round((sum / EYES.length) * 1000) / 1000;
}
