import type { ImageType } from '../images';

/** Messages from the server to an AI worker process. Images travel as base64. */
export type WorkerRequest =
  | { op: 'checkFace'; id: number; image: string; type: ImageType }
  | {
      op: 'checkIdCard';
      id: number;
      image: string;
      type: ImageType;
      headShot: string | null;
      headShotType: ImageType | null;
      expectedName: string;
      idTypes?: number[];
    }
  | {
      op: 'analyse';
      id: number;
      file: string;
      headShot: string | null;
      method: number;
      types: string[];
      ffmpegPath: string;
    }
  | {
      /** A live still: faces, pose and similarity to the head shot (medium: AI realtime, low: after the exam). */
      op: 'still';
      id: number;
      image: string;
      headShot: string | null;
      priority: 'medium' | 'low';
    }
  | { op: 'stats'; id: number }
  | { op: 'cancel'; id: number; target: number };

/** Messages from an AI worker process to the server. */
export type WorkerResponse =
  | { type: 'ready'; rss: number }
  | { type: 'fatal'; error: string }
  | { type: 'progress'; id: number; doneMs: number }
  | { type: 'result'; id: number; ok: true; result: unknown }
  | { type: 'result'; id: number; ok: false; error: string };

/** A request without its id (the pool assigns it). */
export type WorkerCall = WorkerRequest extends infer R
  ? R extends { id: number }
    ? Omit<R, 'id'>
    : never
  : never;
