// What fills a built chunk: its minified bytes attributed to the packages (or src/ folders) they came from,
// through the chunk's source map, with an estimate of each one's gzip share. Usage:
//   node bench/bundle-attrib.mjs                 the entry chunk
//   node bench/bundle-attrib.mjs <route page>    the login route's initial JS, e.g. src/routes/open/login-page.tsx
//   node bench/bundle-attrib.mjs --files         per source file instead of per package
// Figures, not a pass/fail check (bench/bundle-size.mjs holds the goals).
import { readFileSync, existsSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import path from 'node:path';
import { buildIfNeeded, root } from '../scripts/lib.mjs';

const args = process.argv.slice(2);
const perFile = args.includes('--files');
const target = args.find((a) => !a.startsWith('--'));

buildIfNeeded();
const dist = path.join(root, 'dist');
const manifest = JSON.parse(readFileSync(path.join(dist, '.vite', 'manifest.json'), 'utf8'));
const entryKey = Object.keys(manifest).find((k) => manifest[k].isEntry);
const closure = (key, seen = new Set()) => {
  if (seen.has(key)) return seen;
  seen.add(key);
  for (const imp of manifest[key]?.imports ?? []) closure(imp, seen);
  return seen;
};
const keys = target ? closure(target, closure(entryKey)) : new Set([entryKey]);
if (target && !manifest[target]) {
  console.error(`✖ ${target} is not in dist/.vite/manifest.json`);
  process.exit(1);
}

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const B64_INDEX = new Map([...B64].map((c, i) => [c, i]));
/** Decodes one source-map segment (base64 VLQ) into its numbers. */
function decodeSegment(text) {
  const out = [];
  let value = 0;
  let shift = 0;
  for (const ch of text) {
    const digit = B64_INDEX.get(ch);
    value += (digit & 31) << shift;
    if (digit & 32) shift += 5;
    else {
      out.push(value & 1 ? -(value >>> 1) : value >>> 1);
      value = 0;
      shift = 0;
    }
  }
  return out;
}

/** Which bucket a source belongs to: a package name, or the first two folders of a src/ path. */
function bucketOf(source) {
  const clean = source.replace(/^(\.\.\/)+/, '').replace(/\?.*$/, '');
  if (perFile) return clean;
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(clean);
  if (pkg) return pkg[1];
  const src = /^(src|contract)\/([^/]+)(\/[^/]+)?/.exec(clean);
  if (src)
    return src[1] === 'contract'
      ? 'contract/'
      : `${src[1]}/${src[2]}${src[3]?.includes('.') ? '' : (src[3] ?? '')}`;
  return clean;
}

/** Bytes of a chunk per bucket: each mapped segment runs until the next one on its line. */
function attribute(file) {
  const code = readFileSync(path.join(dist, file), 'utf8');
  const mapFile = path.join(dist, `${file}.map`);
  if (!existsSync(mapFile)) return { code, slices: new Map([['(no source map)', [code]]]) };
  const map = JSON.parse(readFileSync(mapFile, 'utf8'));
  const lines = code.split('\n');
  const slices = new Map();
  const add = (bucket, text) => {
    if (!slices.has(bucket)) slices.set(bucket, []);
    slices.get(bucket).push(text);
  };
  let sourceIndex = 0;
  map.mappings.split(';').forEach((lineText, lineNo) => {
    const line = lines[lineNo] ?? '';
    let column = 0;
    const segs = [];
    for (const segText of lineText.split(',')) {
      if (!segText) continue;
      const s = decodeSegment(segText);
      column += s[0];
      if (s.length >= 4) sourceIndex += s[1];
      segs.push({ column, source: s.length >= 4 ? sourceIndex : null });
    }
    let last = 0;
    segs.forEach((seg, i) => {
      if (i === 0 && seg.column > 0) add('(unmapped)', line.slice(0, seg.column));
      const end = segs[i + 1]?.column ?? line.length;
      const bucket = seg.source === null ? '(unmapped)' : bucketOf(map.sources[seg.source] ?? '?');
      add(bucket, line.slice(seg.column, end));
      last = end;
    });
    if (segs.length === 0) add('(unmapped)', line);
    else if (last < line.length) add('(unmapped)', line.slice(last));
  });
  return { code, slices };
}

const totals = new Map();
let rawAll = 0;
let gzAll = 0;
for (const key of keys) {
  const { code, slices } = attribute(manifest[key].file);
  rawAll += code.length;
  gzAll += gzipSync(code, { level: 9 }).length;
  for (const [bucket, parts] of slices) {
    const t = totals.get(bucket) ?? [];
    t.push(parts.join(''));
    totals.set(bucket, t);
  }
}
// A bucket's gzip share: its own text gzipped alone, scaled so the shares add up to the real total (gzip of
// a part alone is larger than its share of the whole, since it loses the context of the rest).
const rows = [...totals].map(([bucket, parts]) => {
  const text = parts.join('');
  return { bucket, raw: text.length, gzAlone: gzipSync(text, { level: 9 }).length };
});
const alone = rows.reduce((a, r) => a + r.gzAlone, 0);
for (const r of rows) r.gz = (r.gzAlone * gzAll) / alone;
rows.sort((a, b) => b.raw - a.raw);
const kb = (n) => (n / 1024).toFixed(1).padStart(7);
console.log(`${target ?? entryKey}: ${keys.size} chunk(s), ${kb(rawAll)} KB raw, ${kb(gzAll)} KB gzip`);
console.log(`${'source'.padEnd(56)} raw KB   share  ≈gzip KB`);
for (const r of rows.slice(0, perFile ? 60 : 40))
  console.log(
    `${r.bucket.slice(0, 56).padEnd(56)} ${kb(r.raw)} ${((100 * r.raw) / rawAll).toFixed(1).padStart(6)}%  ${kb(r.gz)}`,
  );
