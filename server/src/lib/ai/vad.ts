import { readFile } from 'node:fs/promises';
import type * as OrtModule from 'onnxruntime-web';
import type { InferenceSession } from 'onnxruntime-web';
import { modelPaths } from './models';

type Ort = typeof OrtModule;

const SAMPLE_RATE = 16000;
const WINDOW = 512;
const CONTEXT = 64;

/**
 * Silero VAD v5 (the `.onnx` inside @ricky0123/vad-web) on onnxruntime-web in Node: a real voice-activity
 * model, not a loudness threshold — a 440 Hz tone is not speech (ai-feasibility.md §0.5, §5). Windows of
 * 512 samples at 16 kHz with 64 samples of context prepended and the [2,1,128] state carried between them.
 */
export class SileroVad {
  private constructor(
    private readonly ort: Ort,
    private readonly session: InferenceSession,
  ) {}

  static async create(): Promise<SileroVad> {
    const ort = await import('onnxruntime-web');
    // Node's wasm runs single-threaded here; one thread per worker process (§7).
    ort.env.wasm.numThreads = 1;
    const model = await readFile(modelPaths().silero);
    const session = await ort.InferenceSession.create(new Uint8Array(model), {
      executionProviders: ['wasm'],
    });
    return new SileroVad(ort, session);
  }

  /** Speech probability of every 512-sample window (32 ms) of 16 kHz mono audio. */
  async probabilities(pcm: Float32Array): Promise<Float32Array> {
    const { Tensor } = this.ort;
    const n = Math.floor(pcm.length / WINDOW);
    const out = new Float32Array(n);
    let state = new Tensor('float32', new Float32Array(2 * 128), [2, 1, 128]);
    const sr = new Tensor('int64', BigInt64Array.from([BigInt(SAMPLE_RATE)]), []);
    const buf = new Float32Array(CONTEXT + WINDOW);
    for (let i = 0; i < n; i++) {
      buf.copyWithin(0, WINDOW, WINDOW + CONTEXT);
      buf.set(pcm.subarray(i * WINDOW, (i + 1) * WINDOW), CONTEXT);
      const r = await this.session.run({
        input: new Tensor('float32', buf.slice(), [1, CONTEXT + WINDOW]),
        state,
        sr,
      });
      out[i] = (r.output!.data as Float32Array)[0]!;
      state = r.stateN as typeof state;
    }
    return out;
  }

  /** Per second: the fraction of windows whose speech probability is above `threshold`, and their mean. */
  async speechPerSecond(pcm: Float32Array, threshold: number): Promise<{ fraction: number; mean: number }[]> {
    const probs = await this.probabilities(pcm);
    const seconds = Math.ceil(pcm.length / SAMPLE_RATE);
    const hits = new Array<number>(seconds).fill(0);
    const total = new Array<number>(seconds).fill(0);
    const sum = new Array<number>(seconds).fill(0);
    probs.forEach((p, i) => {
      const s = Math.floor((i * WINDOW) / SAMPLE_RATE);
      total[s]! += 1;
      if (p > threshold) {
        hits[s]! += 1;
        sum[s]! += p;
      }
    });
    return total.map((t, s) => ({ fraction: t ? hits[s]! / t : 0, mean: hits[s] ? sum[s]! / hits[s]! : 0 }));
  }
}

/** The audio sample rate the analysis decodes to. */
export const VAD_SAMPLE_RATE = SAMPLE_RATE;
