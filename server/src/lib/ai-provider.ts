import type { FastifyInstance } from 'fastify';

/** An image handed to the AI: the bytes and their sniffed type. */
export interface AiImage {
  body: Buffer;
  type: 'image/jpeg' | 'image/png' | 'image/webp';
}

/**
 * Verdict on a face photo. `ok`: one usable face; `rejected`: no face, several faces or too poor to use
 * (retake); `unavailable`: the AI could not judge at all (no model, failure) — never a success.
 */
export interface FaceVerdict {
  outcome: 'ok' | 'rejected' | 'unavailable';
  /** Short machine reason, e.g. 'no_face', 'multiple_faces', 'model_missing'. */
  reason?: string;
  /** Raw scores for the audit trail (detector score, antispoof, …). */
  scores?: Record<string, number>;
}

/**
 * Verdict on an ID-card photo against the head shot. `ok`: the card's face matches the head shot;
 * `unreadable`: no card or face found (retake the card); `mismatch`: a different person (start over from the
 * face photo); `unavailable`: the AI could not judge. `nameMatch` is the 0–100 name-match rate when read.
 */
export interface IdVerdict {
  outcome: 'ok' | 'unreadable' | 'mismatch' | 'unavailable';
  reason?: string;
  nameMatch?: number;
  scores?: Record<string, number>;
}

/** Options of an ID-card check from the sitting's start-up parameters. */
export interface IdCheckOptions {
  /** `ai_idcard_type`: 1 driver's licence, 2 passport, 3 My Number card. */
  idTypes?: number[];
}

/**
 * The AI identity checker. The default model-backed implementation is server/src/lib/ai; a
 * deployment may install another (e.g. a cloud service) with {@link setAiProvider}.
 */
export interface AiProvider {
  checkFace(img: AiImage): Promise<FaceVerdict>;
  checkIdCard(
    img: AiImage,
    headShot: AiImage | null,
    expectedName: string,
    opts?: IdCheckOptions,
  ): Promise<IdVerdict>;
}

/** The default provider: no model is installed, so every verdict is 'unavailable' (never a fake success). */
export class UnavailableAiProvider implements AiProvider {
  async checkFace(): Promise<FaceVerdict> {
    return { outcome: 'unavailable', reason: 'no_ai_provider' };
  }
  async checkIdCard(): Promise<IdVerdict> {
    return { outcome: 'unavailable', reason: 'no_ai_provider' };
  }
}

const providers = new WeakMap<FastifyInstance, AiProvider>();
const unavailable = new UnavailableAiProvider();

/** Installs the AI provider of an app (app start-up, or a test's stub). */
export function setAiProvider(app: FastifyInstance, provider: AiProvider): void {
  providers.set(app, provider);
}

/** The app's AI provider; {@link UnavailableAiProvider} unless one was installed. */
export function getAiProvider(app: FastifyInstance): AiProvider {
  // Route plugins get encapsulated instances that inherit from the root one: walk up to find the provider.
  for (let o: object | null = app; o; o = Object.getPrototypeOf(o) as object | null) {
    const p = providers.get(o as FastifyInstance);
    if (p) return p;
  }
  return unavailable;
}
