import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Human as HumanT, Config as HumanConfig } from '@vladmandic/human';
import type { Worker as TesseractWorker } from 'tesseract.js';

const require = createRequire(import.meta.url);

/** The Human class of the node-wasm build (ai-feasibility.md §1: tfjs-node cannot install offline). */
type HumanCtor = new (config?: Partial<HumanConfig>) => HumanT;

/** Folder of an installed package's resolved entry (the package `exports` map hides subpaths, §1). */
function packageDir(name: string): string {
  return path.dirname(require.resolve(name));
}

let fetchShimmed = false;
/**
 * Node's fetch rejects file:// URLs, and Human loads its models with fetch (§6.2): answer file:// from disk
 * and pass everything else to the real fetch.
 */
function installFileFetch(): void {
  if (fetchShimmed) return;
  fetchShimmed = true;
  const real = globalThis.fetch;
  globalThis.fetch = async (input: Parameters<typeof fetch>[0], init?: RequestInit) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    if (url.startsWith('file://')) {
      const buf = await readFile(new URL(url));
      return new Response(new Uint8Array(buf));
    }
    return real(input, init);
  };
}

/** Paths of every model file, all inside node_modules (no download at run time, §0.8). */
export function modelPaths() {
  const humanDist = packageDir('@vladmandic/human');
  return {
    humanDist,
    humanModels: path.join(humanDist, '..', 'models'),
    tfWasm: packageDir('@tensorflow/tfjs-backend-wasm'),
    tessEng: path.join(packageDir('@tesseract.js-data/eng'), '4.0.0_best_int'),
    tessJpn: path.join(packageDir('@tesseract.js-data/jpn'), '4.0.0_best_int'),
    silero: path.join(path.dirname(require.resolve('@ricky0123/vad-web')), 'silero_vad_v5.onnx'),
  };
}

/**
 * Loads Human (node-wasm, single thread, SIMD) with face detection, mesh, iris and the faceres embedding;
 * everything else off. `detect()` calls on the returned instance must not overlap (§6.3).
 */
export async function loadHuman(maxDetected = 5): Promise<HumanT> {
  installFileFetch();
  const p = modelPaths();
  const { Human } = require(path.join(p.humanDist, 'human.node-wasm.js')) as { Human: HumanCtor };
  const human = new Human({
    backend: 'wasm',
    modelBasePath: 'file://' + p.humanModels + '/',
    wasmPath: p.tfWasm + '/',
    wasmPlatformFetch: false,
    debug: false,
    cacheSensitivity: 0,
    filter: { enabled: false },
    body: { enabled: false },
    hand: { enabled: false },
    object: { enabled: false },
    gesture: { enabled: false },
    segmentation: { enabled: false },
    face: {
      enabled: true,
      detector: { rotation: true, maxDetected, minConfidence: 0.3, skipFrames: 0, return: false },
      mesh: { enabled: true },
      iris: { enabled: true },
      description: { enabled: true, skipFrames: 0 },
      emotion: { enabled: false },
      antispoof: { enabled: false },
      liveness: { enabled: false },
    },
  } as Partial<HumanConfig>);
  await human.load();
  await human.warmup();
  return human;
}

/** What the OCR engine returns for one image. */
export interface OcrText {
  text: string;
  confidence: number;
}

/** A warm Tesseract worker per language, loaded from the npm traineddata with `langPath` (never the CDN, §4). */
export class Ocr {
  private readonly workers = new Map<'eng' | 'jpn', Promise<TesseractWorker>>();

  private worker(lang: 'eng' | 'jpn') {
    let w = this.workers.get(lang);
    if (!w) {
      const p = modelPaths();
      w = import('tesseract.js').then(({ createWorker, OEM }) =>
        createWorker(lang, OEM.LSTM_ONLY, {
          langPath: lang === 'eng' ? p.tessEng : p.tessJpn,
          cacheMethod: 'none',
          gzip: true,
        }),
      );
      this.workers.set(lang, w);
    }
    return w;
  }

  /** Starts both workers (start-up warm-up). */
  async warm(): Promise<void> {
    await Promise.all([this.worker('eng'), this.worker('jpn')]);
  }

  /** Recognises the text of an image in one language (`jpn` also reads Latin capitals). */
  async read(image: Buffer, lang: 'eng' | 'jpn'): Promise<OcrText> {
    const w = await this.worker(lang);
    const r = await w.recognize(image);
    return { text: r.data.text, confidence: r.data.confidence };
  }

  async close(): Promise<void> {
    const all = [...this.workers.values()];
    this.workers.clear();
    await Promise.all(all.map(async (w) => (await w).terminate()));
  }
}
