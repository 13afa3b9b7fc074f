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
