import { readFileSync } from 'node:fs';
import { IdentityEngine } from '../src/lib/ai/identity';
import { aiSettings } from '../src/lib/ai/settings';
const t0 = Date.now();
const e = await IdentityEngine.create(aiSettings(), { ocr: false });
console.log('load', Date.now() - t0);
for (const f of process.argv.slice(2)) {
  const b = readFileSync(f);
  const t = Date.now();
  const r = await e.detectImage(b);
  console.log(f, Date.now() - t, 'ms', r.width, r.height, r.faces.map((x) => ({ s: x.score.toFixed(2), box: x.box.map(Math.round), yaw: x.yaw, pitch: x.pitch, emb: x.embedding?.length })));
  console.log(JSON.stringify(await e.checkFace({ body: b, type: 'image/png' })));
}
await e.close();
