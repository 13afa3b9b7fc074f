import { createHash } from 'node:crypto';
import sharp from 'sharp';
import type { Human } from '@vladmandic/human';
import type { AiImage, FaceVerdict, IdCheckOptions, IdVerdict } from '../ai-provider';
import { classifyCosine, cosine, degrees, imageQuality, irisOffset } from './face-math';
import { loadHuman, Ocr } from './models';
import { isJapaneseName, nameMatchRate } from './name-match';
import { PriorityLock } from './priority-lock';
import type { AiSettings } from './settings';

/** One face Human found, reduced to what the checks use (angles in degrees). */
export interface DetectedFace {
  score: number;
  box: [number, number, number, number];
  yaw: number;
  pitch: number;
  gazeBearing: number;
  gazeStrength: number;
  /** Sideways gaze: the irises' offset from the eye centres as a fraction of eye width ({@link irisOffset}). */
  gaze?: number | null;
  embedding: number[] | null;
}

const MAX_SIDE = 1024;
const EMBEDDING_CACHE = 64;

/**
 * The model-backed identity checks and frame detection of one process: one Human instance (one detect at a
 * time) and warm Tesseract workers. Create with {@link IdentityEngine.create}; loading takes about a second.
 */
export class IdentityEngine {
  private readonly lock = new PriorityLock();
  private readonly embeddings = new Map<string, number[] | null>();

  private constructor(
    private readonly human: Human,
    private readonly ocr: Ocr,
    readonly settings: AiSettings,
  ) {}

  /** Loads the models (and warms the OCR workers unless `ocr` is false). */
  static async create(settings: AiSettings, opts: { ocr?: boolean } = {}): Promise<IdentityEngine> {
    const human = await loadHuman();
    const ocr = new Ocr();
    if (opts.ocr !== false) await ocr.warm();
    return new IdentityEngine(human, ocr, settings);
  }

  async close(): Promise<void> {
    await this.ocr.close();
  }

  /** Detects faces in raw RGB pixels (frames of a recording), one detect at a time. */
  async detectRgb(
    rgb: Uint8Array,
    width: number,
    height: number,
    priority: 'high' | 'low' = 'low',
  ): Promise<DetectedFace[]> {
    return this.lock.run(priority, async () => {
      const tf = this.human.tf as unknown as {
        tensor(v: Int32Array, shape: number[], dtype: 'int32'): { dispose(): void };
      };
      const t = tf.tensor(Int32Array.from(rgb), [1, height, width, 3], 'int32');
      try {
        const res = await this.human.detect(t as never);
        return res.face.map((f) => ({
          score: f.score,
          box: [f.box[0], f.box[1], f.box[2], f.box[3]],
          yaw: degrees(f.rotation?.angle.yaw ?? 0),
          pitch: degrees(f.rotation?.angle.pitch ?? 0),
          gazeBearing: degrees(f.rotation?.gaze.bearing ?? 0),
          gazeStrength: f.rotation?.gaze.strength ?? 0,
          gaze: irisOffset(f.mesh as unknown as number[][]),
          embedding: f.embedding?.length ? Array.from(f.embedding) : null,
        }));
      } finally {
        t.dispose();
      }
    });
  }

  /** Decodes an image (EXIF-rotated, at most 1024 px) and detects its faces. */
  async detectImage(image: Buffer, priority: 'high' | 'low' = 'high') {
    const { data, info } = await sharp(image)
      .rotate()
      .resize(MAX_SIDE, MAX_SIDE, { fit: 'inside', withoutEnlargement: true })
      .removeAlpha()
      .toColourspace('srgb')
      .raw()
      .toBuffer({ resolveWithObject: true });
    const faces = await this.detectRgb(data, info.width, info.height, priority);
    return { faces, width: info.width, height: info.height };
  }

  /** The embedding of the largest face of an image (cached by content), or null without a face. */
  async embeddingOf(image: Buffer): Promise<number[] | null> {
    const key = createHash('sha256').update(image).digest('hex');
    if (this.embeddings.has(key)) return this.embeddings.get(key)!;
    const { faces } = await this.detectImage(image);
    const face = largest(faces.filter((f) => f.score >= this.settings.face.countScore));
    const e = face?.embedding ?? null;
    this.remember(key, e);
    return e;
  }

  private remember(key: string, e: number[] | null) {
    this.embeddings.set(key, e);
    if (this.embeddings.size > EMBEDDING_CACHE) this.embeddings.delete(this.embeddings.keys().next().value!);
  }

  /**
   * The face-photo gate (§3.1): sharp and bright enough, exactly one face with a high score, large enough,
   * fully inside the frame and facing the camera. Any failure is 'rejected' ("cannot recognise the face").
   */
  async checkFace(img: AiImage): Promise<FaceVerdict> {
    const g = this.settings.face;
    const quality = await imageQuality(img.body);
    const { faces: all, width, height } = await this.detectImage(img.body);
    const faces = all.filter((f) => f.score >= g.countScore);
    const face = faces.length === 1 ? faces[0]! : largest(faces);
    const scores: Record<string, number> = {
      faces: faces.length,
      sharpness: Math.round(quality.sharpness),
      luma: Math.round(quality.luma),
    };
    if (face) {
      Object.assign(scores, {
        face_score: round3(face.score),
        face_side: Math.round(Math.min(face.box[2], face.box[3])),
        yaw: face.yaw,
        pitch: face.pitch,
      });
    }
    const reject = (reason: string): FaceVerdict => ({ outcome: 'rejected', reason, scores });
    // Pixels first: on a blurred photo the detector invents faces (§3.1), so its verdict is not trusted.
    if (quality.sharpness < g.minSharpness) return reject('blurred');
    if (quality.luma < g.minLuma) return reject('too_dark');
    if (faces.length === 0 || !face) return reject('no_face');
    if (faces.length > 1) return reject('multiple_faces');
    if (face.score < g.minScore) return reject('low_score');
    if (Math.min(face.box[2], face.box[3]) < g.minSide) return reject('face_too_small');
    if (!inFrame(face.box, width, height)) return reject('face_out_of_frame');
    if (Math.abs(face.yaw) > g.maxYaw || Math.abs(face.pitch) > g.maxPitch)
      return reject('not_facing_camera');
    if (!face.embedding) return reject('no_embedding');
    this.remember(createHash('sha256').update(img.body).digest('hex'), face.embedding);
    return { outcome: 'ok', scores };
  }

  /**
   * The ID-card check: the card's face against the head shot by cosine (same ≥ 0.72, uncertain 0.60–0.72,
   * different below, §3.2), and the printed name read by OCR in the script of the registered name. The
   * name-match rate is returned; the caller compares it with the sitting's `ai_namematch` tolerance.
   */
  async checkIdCard(
    card: AiImage,
    headShot: AiImage | null,
    expectedName: string,
    opts: IdCheckOptions = {},
  ): Promise<IdVerdict> {
    const lang = isJapaneseName(expectedName) ? 'jpn' : 'eng';
    // OCR runs in Tesseract's own thread while Human looks at the faces.
    const ocr = this.ocr.read(card.body, lang).catch(() => null);
    const scores: Record<string, number> = {};
    if (opts.idTypes?.length) scores.id_types = Number(opts.idTypes.join(''));
    const { faces } = await this.detectImage(card.body);
    const cardFace = largest(faces.filter((f) => f.score >= this.settings.face.countScore));
    if (!cardFace?.embedding) {
      await ocr;
      return { outcome: 'unreadable', reason: 'no_card_face', scores: { ...scores, card_faces: 0 } };
    }
    scores.card_faces = faces.filter((f) => f.score >= this.settings.face.countScore).length;
    scores.card_face_score = round3(cardFace.score);
    const head = headShot ? await this.embeddingOf(headShot.body) : null;
    if (!head) {
      await ocr;
      return { outcome: 'unavailable', reason: 'no_head_shot', scores };
    }
    const c = cosine(cardFace.embedding, head);
    scores.cosine = round3(c);
    const cls = classifyCosine(c, this.settings.match);
    const read = await ocr;
    if (read) scores.ocr_confidence = Math.round(read.confidence);
    const text = read?.text ?? '';
    const nameMatch = nameMatchRate(expectedName, text);
    scores.name_match = nameMatch;
    if (cls !== 'same') {
      return {
        outcome: 'mismatch',
        reason: cls === 'uncertain' ? 'face_uncertain' : 'face_different',
        nameMatch,
        scores,
      };
    }
    if (!/[\p{L}\p{N}]/u.test(text)) return { outcome: 'unreadable', reason: 'no_text', scores };
    return { outcome: 'ok', nameMatch, scores };
  }
}

function largest(faces: DetectedFace[]): DetectedFace | undefined {
  let best: DetectedFace | undefined;
  for (const f of faces) if (!best || f.box[2] * f.box[3] > best.box[2] * best.box[3]) best = f;
  return best;
}

/** Whether a face box keeps a margin from every edge (a face cut by the edge still scores 1.0, §3.1). */
function inFrame(box: DetectedFace['box'], width: number, height: number): boolean {
  const mx = Math.max(1, width * 0.005);
  const my = Math.max(1, height * 0.005);
  return box[0] >= mx && box[1] >= my && box[0] + box[2] <= width - mx && box[1] + box[3] <= height - my;
}

function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}
