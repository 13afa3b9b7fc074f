import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyseFile, frameSamples, type AnalysisOutput } from '../../src/lib/ai/analysis';
import { irisOffset } from '../../src/lib/ai/face-math';
import type { DetectedFace } from '../../src/lib/ai/identity';
import { IdentityEngine } from '../../src/lib/ai/identity';
import { loadHuman } from '../../src/lib/ai/models';
import { aiSettings } from '../../src/lib/ai/settings';
import { SKIMAGE, missingFixtureTools } from './fixtures';

// eye_rot from the gaze (ai-feasibility.md §3: the iris model runs anyway): a frontal face whose
// eyes look sideways counts as looking away, like a turned head or no face.

const settings = aiSettings({});

/** A 478-point mesh with both eyes 20 px wide and the irises `dx` px from their centres. */
function mesh(dxA: number, dxB: number): number[][] {
  const m: number[][] = Array.from({ length: 478 }, () => [0, 0, 0]);
  m[33] = [100, 100, 0];
  m[133] = [120, 100, 0];
  m[362] = [160, 100, 0];
  m[263] = [180, 100, 0];
  m[468] = [170 + dxB, 101, 0];
  m[473] = [110 + dxA, 99, 0];
  return m;
}

describe('iris offset', () => {
  it('is the irises’ mean distance from the eye centres as a fraction of eye width', () => {
    expect(irisOffset(mesh(0, 0))).toBe(0);
    expect(irisOffset(mesh(6, 6))).toBe(0.3);
    // Human mirrors one eye's iris: only the size counts.
    expect(irisOffset(mesh(-6, 6))).toBe(0.3);
    expect(irisOffset(mesh(2, 0))).toBe(0.05);
    expect(irisOffset(mesh(0, 0).slice(0, 468))).toBeNull();
    expect(irisOffset(undefined)).toBeNull();
    // Eyes too small to place the iris (8 px wide).
    const small = mesh(0, 0);
    small[133] = [108, 100, 0];
    expect(irisOffset(small)).toBeNull();
  });

  it('makes a frontal face with sideways eyes count for eye_rot, and centred eyes not', () => {
    const face = (gaze: number | null): DetectedFace => ({
      score: 0.99,
      box: [200, 100, 200, 240],
      yaw: 2,
      pitch: 5,
      gazeBearing: 0,
      gazeStrength: 0,
      gaze,
      embedding: null,
    });
    const frames = [0.04, 0.2, null].map((g, i) => ({ tMs: i * 2000, faces: [face(g)] }));
    const eye = frameSamples(frames, 2000, null, settings.analysis).eye_rot;
    expect(eye.map((s) => s.hit)).toEqual([false, true, false]);
  });
});

const missing = missingFixtureTools();
const W = 640;
const H = 480;
/** Moves each eye's content sideways inside the eye aperture (wrapping), by `frac` of the eye's width. */
function shiftIrises(rgb: Buffer, m: number[][], frac: number): Buffer {
  const out = Buffer.from(rgb);
  for (const [a, b, up, lo] of [
    [33, 133, 159, 145],
    [362, 263, 386, 374],
  ] as const) {
    const [ax, ay] = m[a]!;
    const [bx, by] = m[b]!;
    const cx = (ax! + bx!) / 2;
    const cy = (ay! + by!) / 2;
    const rx = Math.abs(bx! - ax!) / 2;
    const ry = Math.abs(m[lo]![1]! - m[up]![1]!) / 2 + 1;
    const shift = Math.round(frac * 2 * rx);
    for (let y = Math.floor(cy - ry); y <= Math.ceil(cy + ry); y++) {
      const hw = rx * Math.sqrt(Math.max(0, 1 - ((y - cy) / ry) ** 2));
      const x0 = Math.ceil(cx - hw);
      const n = Math.floor(cx + hw) - x0 + 1;
      if (n < 2) continue;
      for (let x = x0; x < x0 + n; x++) {
        const sx = x0 + ((((x - x0 - shift) % n) + n) % n);
        rgb.copy(out, (y * W + x) * 3, (y * W + sx) * 3, (y * W + sx) * 3 + 3);
      }
    }
  }
  return out;
}

describe.skipIf(missing)(
  `eye_rot from the gaze in a recording${missing ? ` (skipped: ${missing})` : ''}`,
  () => {
    let dir = '';
    let engine: IdentityEngine;
    let out: AnalysisOutput;
    /** 0–6 s looking at the camera, 6–12 s the same frontal face with the eyes turned sideways, 12–16 s back. */
    const AWAY = [6000, 12000] as const;

    beforeAll(async () => {
      dir = mkdtempSync(path.join(os.tmpdir(), 'ai-gaze-'));
      // The examinee's head filling the frame (eyes about 28 px wide), as a webcam sees it.
      const { data } = await sharp(path.join(SKIMAGE, 'astronaut.png'))
        .extract({ left: 120, top: 10, width: 260, height: 300 })
        .resize(W, H, { fit: 'contain', background: '#000' })
        .removeAlpha()
        .raw()
        .toBuffer({ resolveWithObject: true });
      // Where the eyes are, from the face mesh.
      const human = await loadHuman();
      const tf = human.tf as unknown as {
        tensor(v: Int32Array, s: number[], d: 'int32'): { dispose(): void };
      };
      const t = tf.tensor(Int32Array.from(data), [1, H, W, 3], 'int32');
      const res = await human.detect(t as never);
      t.dispose();
      const m = res.face[0]!.mesh as unknown as number[][];
      const png = (rgb: Buffer, name: string) =>
        sharp(rgb, { raw: { width: W, height: H, channels: 3 } })
          .png()
          .toFile(path.join(dir, name));
      await png(data, 'front.png');
      await png(shiftIrises(data, m, 0.3), 'away.png');
      const segs: [string, number][] = [
        ['front.png', 6],
        ['away.png', 6],
        ['front.png', 4],
      ];
      execFileSync('ffmpeg', [
        ...['-hide_banner', '-loglevel', 'error', '-y'],
        ...segs.flatMap(([img, s]) => [
          '-loop',
          '1',
          '-t',
          String(s),
          '-framerate',
          '5',
          '-i',
          path.join(dir, img),
        ]),
        ...['-filter_complex', `[0:v][1:v][2:v]concat=n=3:v=1:a=0,format=yuv420p[v]`, '-map', '[v]'],
        ...['-c:v', 'libvpx', '-b:v', '1M', '-deadline', 'realtime', '-cpu-used', '8'],
        path.join(dir, 'gaze.webm'),
      ]);
      engine = await IdentityEngine.create(settings, { ocr: false });
      out = await analyseFile(path.join(dir, 'gaze.webm'), engine, null, {
        ffmpegPath: 'ffmpeg',
        method: 1,
        types: ['eye_rot'],
        head: null,
        settings: settings.analysis,
      });
    }, 180_000);

    afterAll(async () => {
      await engine?.close();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it('flags the seconds with the eyes turned away and none while they look at the camera', () => {
      const eye = out.flags.filter((f) => f.type === 'eye_rot');
      expect(eye.length).toBeGreaterThan(0);
      for (const f of eye) {
        // Within the window, give or take one 2 s sample.
        expect(f.startMs).toBeGreaterThanOrEqual(AWAY[0] - 2000);
        expect(f.endMs).toBeLessThanOrEqual(AWAY[1] + 2000);
      }
      const covered = eye.reduce((n, f) => n + Math.min(f.endMs, AWAY[1]) - Math.max(f.startMs, AWAY[0]), 0);
      expect(covered).toBeGreaterThanOrEqual(4000);
    });
  },
);
