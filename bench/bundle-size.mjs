// Bundle sizes per route: the initial JS a route needs (entry + its static imports + the route's lazy chunk
// and its static imports), raw and gzip, from Vite's manifest. Goals (perf-reliability.md FE-1/FE-2): login
// ≤ 110 KB gzip; any route ≤ 170 KB gzip.
import { readFileSync, existsSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import path from 'node:path';
import { buildIfNeeded, root } from '../scripts/lib.mjs';

buildIfNeeded();
const dist = path.join(root, 'dist');
const manifestPath = path.join(dist, '.vite', 'manifest.json');
if (!existsSync(manifestPath)) {
  console.log('No dist/.vite/manifest.json — build with manifest: true.');
  process.exit(0);
}
const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
const size = (file) => {
  const buf = readFileSync(path.join(dist, file));
  return { raw: buf.length, gzip: gzipSync(buf, { level: 9 }).length };
};
const closure = (key, seen = new Set()) => {
  if (seen.has(key)) return seen;
  seen.add(key);
  for (const imp of manifest[key]?.imports ?? []) closure(imp, seen);
  return seen;
};
const entryKey = Object.keys(manifest).find((k) => manifest[k].isEntry);
const entrySet = closure(entryKey);
const kb = (n) => (n / 1024).toFixed(1).padStart(7);
const rows = [];
const css = Object.values(manifest).flatMap((m) => m.css ?? []);
for (const key of Object.keys(manifest)
  .filter((k) => /src\/routes\/.+-page\.tsx$/.test(k))
  .sort()) {
  const set = closure(key, new Set(entrySet));
  let raw = 0;
  let gz = 0;
  for (const k of set) {
    const s = size(manifest[k].file);
    raw += s.raw;
    gz += s.gzip;
  }
  rows.push({ route: key.replace('src/routes/', ''), raw, gz });
}
const e = [...entrySet].reduce(
  (a, k) => {
    const s = size(manifest[k].file);
    return { raw: a.raw + s.raw, gz: a.gz + s.gzip };
  },
  { raw: 0, gz: 0 },
);
console.log(`entry (shared by every route): ${kb(e.raw)} KB raw ${kb(e.gz)} KB gzip`);
console.log('route page (initial JS incl. entry)              raw KB   gzip KB');
for (const r of rows) console.log(`${r.route.padEnd(46)} ${kb(r.raw)}  ${kb(r.gz)}`);
let cssGz = 0;
for (const c of new Set(css)) cssGz += size(c).gzip;
console.log(`CSS total: ${kb(cssGz)} KB gzip`);
