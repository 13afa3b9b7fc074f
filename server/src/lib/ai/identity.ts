import { createHash } from 'node:crypto';
import sharp from 'sharp';
import type { Human } from '@vladmandic/human';
import type { AiImage, FaceVerdict, IdCheckOptions, IdVerdict } from '../ai-provider';
import { classifyCosine, cosine, degrees, imageQuality, irisOffset, type MatchClass } from './face-math';
import { loadHuman, Ocr } from './models';
import { isJapaneseName, nameMatchRate } from './name-match';
import { PriorityLock, type Priority } from './priority-lock';
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
    priority: Priority = 'low',
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
  async detectImage(image: Buffer, priority: Priority = 'high') {
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
    // Pixels first: on a blurred photo the detector invents faces (§3.1), so its verdict is not trusted. Dark
    // before blurred: a dark photo has little contrast and so also measures as unsharp.
    if (quality.luma < g.minLuma) return reject('too_dark');
    if (quality.sharpness < g.minSharpness) return reject('blurred');
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
   * The ID-card check. The photo is either the card alone or, as an examinee at home takes it, the examinee
   * holding the card up beside their face: then the larger face is the live one and the smaller the card's
   * photo (a card held in front of a camera never shows its photo larger than the face behind it). The card's
   * face, cropped and enlarged, is compared with the head shot by cosine (same ≥ 0.72, uncertain 0.60–0.72,
   * different below, §3.2 — docs/ai-calibration.md); the live face must not be a different person either. The
   * printed name is read by OCR (of the card region, enlarged, when the card is held) in the script of the
   * registered name, and the card type is told from its printed title and checked against the sitting's
   * allowed types. The name-match rate is returned; the caller compares it with `ai_namematch`.
   */
  async checkIdCard(
    card: AiImage,
    headShot: AiImage | null,
    expectedName: string,
    opts: IdCheckOptions = {},
  ): Promise<IdVerdict> {
    const lang = isJapaneseName(expectedName) ? 'jpn' : 'eng';
    const scores: Record<string, number> = {};
    if (opts.idTypes?.length) scores.id_types = Number(opts.idTypes.join(''));
    const { faces: all, width, height } = await this.detectImage(card.body);
    const faces = all.filter((f) => f.score >= this.settings.face.countScore);
    scores.card_faces = faces.length;
    if (faces.length > 2) return { outcome: 'unreadable', reason: 'too_many_faces', scores };
    const [big, small] = [...faces].sort((a, b) => area(b) - area(a));
    const held = faces.length === 2;
    // Two faces of about the same size are two people, not a person and the photo on their card.
    if (held && Math.min(small!.box[2], small!.box[3]) > 0.8 * Math.min(big!.box[2], big!.box[3]))
      return { outcome: 'unreadable', reason: 'two_people', scores };
    const cardFace = held ? small : big;
    const liveFace = held ? big : undefined;
    // The region the card occupies when held (or the whole photo): OCR reads it enlarged.
    const region = held ? cardRegion(cardFace!.box, width, height) : null;
    const ocrImage = await enlarge(
      card.body,
      width,
      height,
      region ?? { left: 0, top: 0, width, height },
      OCR_WIDTH,
    );
    // OCR runs in Tesseract's own thread while Human looks at the faces.
    const ocr = this.ocr.read(ocrImage, lang).catch(() => null);
    // A held card's photo is small: it is also looked at again cropped and enlarged, and the closer of the two
    // readings to the head shot counts (both are readings of the same printed photo).
    const cardEmbeddings = [
      cardFace?.embedding,
      held ? await this.enlargedEmbedding(card.body, width, height, cardFace!.box) : null,
    ].filter((e): e is number[] => !!e);
    if (!cardFace || cardEmbeddings.length === 0) {
      await ocr;
      return { outcome: 'unreadable', reason: 'no_card_face', scores: { ...scores, card_faces: 0 } };
    }
    scores.card_face_score = round3(cardFace.score);
    scores.card_face_side = Math.round(Math.min(cardFace.box[2], cardFace.box[3]));
    const head = headShot ? await this.embeddingOf(headShot.body) : null;
    if (!head) {
      await ocr;
      return { outcome: 'unavailable', reason: 'no_head_shot', scores };
    }
    const c = Math.max(...cardEmbeddings.map((e) => cosine(e, head)));
    scores.cosine = round3(c);
    const cls = classifyCosine(c, this.settings.match);
    scores.match_class = MATCH_CODE[cls];
    let liveCls: MatchClass = 'same';
    if (liveFace?.embedding) {
      const lc = cosine(liveFace.embedding, head);
      scores.live_cosine = round3(lc);
      liveCls = classifyCosine(lc, this.settings.match);
    }
    let read = await ocr;
    let nameMatch = nameMatchRate(expectedName, read?.text ?? '');
    // A card held at a slant: Tesseract's layout analysis drops tilted lines, so when the name was not found
    // the card is read again turned a little each way, and the best reading counts.
    for (const angle of nameMatch < RETRY_BELOW ? DESKEW_ANGLES : []) {
      const turned = await sharp(ocrImage).rotate(angle, { background: '#ffffff' }).png().toBuffer();
      const again = await this.ocr.read(turned, lang).catch(() => null);
      const m = nameMatchRate(expectedName, again?.text ?? '');
      if (m > nameMatch) [read, nameMatch] = [again, m];
      if (nameMatch >= RETRY_BELOW) break;
    }
    if (read) scores.ocr_confidence = Math.round(read.confidence);
    const text = read?.text ?? '';
    scores.name_match = nameMatch;
    const type = idTypeOf(text);
    scores.id_type_read = type ?? 0;
    if (cls !== 'same') {
      return {
        outcome: 'mismatch',
        reason: cls === 'uncertain' ? 'face_uncertain' : 'face_different',
        nameMatch,
        scores,
      };
    }
    if (liveCls === 'different')
      return { outcome: 'mismatch', reason: 'live_face_different', nameMatch, scores };
    if (!/[\p{L}\p{N}]/u.test(text)) return { outcome: 'unreadable', reason: 'no_text', scores };
    // One face, no card title and nothing like the name: the photo shows a face but no readable card (a
    // blurred card whose photo was not found, or no card at all) — retake the card, not "another person".
    if (!held && !type && nameMatch < UNREADABLE_NAME_MATCH)
      return { outcome: 'unreadable', reason: 'no_card_text', nameMatch, scores };
    // A card whose title says it is a type the sitting does not accept is not the ID asked for.
    if (type && opts.idTypes?.length && !opts.idTypes.includes(type))
      return { outcome: 'unreadable', reason: 'id_type_not_allowed', nameMatch, scores };
    return { outcome: 'ok', nameMatch, scores };
  }

  /** The embedding of the face in `box`, cropped with a margin and enlarged so the face is about 256 px. */
  private async enlargedEmbedding(
    image: Buffer,
    width: number,
    height: number,
    box: DetectedFace['box'],
  ): Promise<number[] | null> {
    const side = Math.max(box[2], box[3]);
    const region = clampRegion(
      { left: box[0] - side * 0.6, top: box[1] - side * 0.6, width: side * 2.2, height: side * 2.2 },
      width,
      height,
    );
    const crop = await enlarge(image, width, height, region, Math.round((256 / side) * region.width));
    const { faces } = await this.detectImage(crop);
    return largest(faces.filter((f) => f.score >= this.settings.face.countScore))?.embedding ?? null;
  }
}

/** Stored with a decision: 1 same, 2 uncertain, 3 different (scores are numbers). */
const MATCH_CODE: Record<MatchClass, number> = { same: 1, uncertain: 2, different: 3 };

/** Below this name-match rate, with no card title read, a one-face photo counts as showing no readable card. */
const UNREADABLE_NAME_MATCH = 50;

/** A name-match rate below this has the card read again at {@link DESKEW_ANGLES}. */
const RETRY_BELOW = 80;
/** Degrees a slanted card is turned by for another reading (a hand holds a card within about ±10°). */
const DESKEW_ANGLES = [-7, 7];

/** Width the card region is enlarged to for OCR (Tesseract reads 20–40 px letters best). */
const OCR_WIDTH = 1400;

/**
 * The public ID types of the start-up parameters (`ai_idcard_type`) told from a card's printed title, in
 * Japanese or English: 1 driver's licence, 2 passport, 3 My Number card; null when the title was not read.
 */
export function idTypeOf(text: string): 1 | 2 | 3 | null {
  const t = text.normalize('NFKC').replace(/\s+/g, '').toUpperCase();
  if (/運転免許|DRIVER.?S?LICEN[CS]E|DRIVINGLICEN[CS]E/.test(t)) return 1;
  if (/旅券|PASSPORT|P<[A-Z]{3}/.test(t)) return 2;
  if (/個人番号|マイナンバー|INDIVIDUALNUMBER|MYNUMBER/.test(t)) return 3;
  return null;
}

interface Region {
  left: number;
  top: number;
  width: number;
  height: number;
}

function clampRegion(r: Region, width: number, height: number): Region {
  const left = Math.max(0, Math.floor(r.left));
  const top = Math.max(0, Math.floor(r.top));
  return {
    left,
    top,
    width: Math.max(1, Math.min(width - left, Math.ceil(r.width + (r.left - left)))),
    height: Math.max(1, Math.min(height - top, Math.ceil(r.height + (r.top - top)))),
  };
}

/**
 * Where a held card lies around its photo: ID cards put the photo in a corner or at one side with the name
 * beside it, and a card is about 1.6 times as wide as high and 3–4 photo widths wide. The region spans
 * that far to both sides (one of them is the card, the other background) so either layout is covered.
 */
function cardRegion(box: DetectedFace['box'], width: number, height: number): Region {
  const w = box[2];
  const h = box[3];
  return clampRegion(
    { left: box[0] - w * 4.5, top: box[1] - h * 1.6, width: w * 10, height: h * 4 },
    width,
    height,
  );
}

/** The region of an image (in the detector's downscaled coordinates) as a PNG `targetWidth` wide (at most 4×). */
async function enlarge(image: Buffer, width: number, height: number, r: Region, targetWidth: number) {
  const meta = await sharp(image).rotate().metadata();
  // detectImage shrank the image to at most MAX_SIDE: map the region back to the original pixels.
  const ow = meta.autoOrient?.width ?? meta.width ?? width;
  const oh = meta.autoOrient?.height ?? meta.height ?? height;
  const k = Math.max(ow / width, oh / height);
  const region = clampRegion(
    { left: r.left * k, top: r.top * k, width: r.width * k, height: r.height * k },
    ow,
    oh,
  );
  return sharp(image)
    .rotate()
    .extract(region)
    .resize({ width: Math.max(region.width, Math.min(targetWidth, region.width * 4)), kernel: 'lanczos3' })
    .png()
    .toBuffer();
}

function area(f: DetectedFace): number {
  return f.box[2] * f.box[3];
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
