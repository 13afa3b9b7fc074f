// Bundle sizes per route: the initial JS a route needs (entry + its static imports + the route's lazy chunk
// and its static imports), raw and gzip, from Vite's manifest. Goals (perf-reliability.md FE-1/FE-2): login
// ≤ 110 KB gzip; any route ≤ 170 KB gzip; every lazy chunk ≤ 60 KB gzip. The last lines say, per goal,
// "goal met" or by how much it is over (a missed goal does not fail the bench). What fills a chunk:
// bench/bundle-attrib.mjs.
//
// A page's Japanese texts (the default language) are in its JS: the features, pages and parts that show texts
// import their Japanese files (src/i18n/index.ts `addTexts`), so the JS column is everything a Japanese page
// waits for. Listed once, with when they are fetched: the chunks imported dynamically, so nothing fetched
// after start-up goes uncounted; for each, what it adds to what its importers have already loaded.
//
// It exits non-zero, after the figures, when a browser chunk contains TypeBox (the contract's schema modules
// are for the server, and the SPA imports values only from contract/constants: eslint.config.js), or when
// chunks import each other in a cycle (vite.config.ts groups modules into chunks without their dependencies;
// a cycle would make their evaluation order depend on which is loaded first).
import { readFileSync, existsSync, readdirSync } from 'node:fs';
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
const sum = (keys) =>
  [...keys].reduce(
    (a, k) => {
      const s = size(manifest[k].file);
      return { raw: a.raw + s.raw, gz: a.gz + s.gzip };
    },
    { raw: 0, gz: 0 },
  );
const entryKey = Object.keys(manifest).find((k) => manifest[k].isEntry);
const entrySet = closure(entryKey);
const kb = (n) => (n / 1024).toFixed(1).padStart(7);

const rows = [];
for (const key of Object.keys(manifest)
  .filter((k) => /src\/routes\/.+-page\.tsx$/.test(k))
  .sort()) {
  const js = sum(closure(key, new Set(entrySet)));
  rows.push({ route: key.replace('src/routes/', ''), ...js });
}
const e = sum(entrySet);
console.log(`entry (shared by every route): ${kb(e.raw)} KB raw ${kb(e.gz)} KB gzip`);
console.log('route page (initial JS incl. entry and Japanese texts)  raw KB   gzip KB');
for (const r of rows) console.log(`${r.route.padEnd(54)} ${kb(r.raw)}  ${kb(r.gz)}`);

// Chunks imported dynamically (neither pages nor texts) by the entry or by a page: fetched outside the table
// above, at the moment the known ones name. A new one shows "(when: unknown — check)".
const WHEN = [
  [
    /node_modules\/axios\//,
    'at start-up, not render-blocking: the first API call (the server-clock sync after start-up, a client log) or, for a JT start-up, with the start-up checks',
  ],
  [
    /src\/i18n\/core-en\.ts/,
    'before the first render of an English page (English pages also use the Japanese core)',
  ],
  [/global-modal/, 'right after the first render (the alert and confirm modals)'],
  [
    /(^|[_/])dates[-.]/,
    'with the first client log entry (its timestamp); pages that show times import it statically',
  ],
  [/env-check-modal/, "when the login page's environment check is opened"],
  [
    /amazon-kinesis-video-streams-webrtc|client-kinesis-video|kvs-signer|_dist-es/,
    "when the examinee's live channel starts (the first matching with signaling credentials)",
  ],
  [/client-s3/, 'when the recording sends its first part'],
  [
    /(^|\/)recording-media/,
    'when the examinee agrees to the exam notes on /examining, or a recording starts',
  ],
  [/viewer-sdk/, "when the checker's first pane connects"],
  [/src\/media\/viewer\.ts/, "when the checker's first pane connects (the viewer, then its SDK)"],
  [
    /src\/media\/master\.ts/,
    "when a live channel starts (the examinee's first matching with signaling credentials; the phone's first channel)",
  ],
  [
    /room-scan-dialog|screen-share-block|console-dialogs|retention-modal|confirm-modal/,
    "right after the page's first render (dialogs closed when the page first shows)",
  ],
  [/phone-recording-media/, "when the phone's recording starts (its camera publishes)"],
  [
    /(^|\/)recording-machinery/,
    "when a recording starts on /examining, or ahead when the examinee agrees to the exam notes (with the recording's media code)",
  ],
  [
    /wider-view-steps|phone-pairing-panel|recording-status/,
    "right after /examining's first render (parts shown once the sitting asks for them)",
  ],
  [/(^|\/)live-stills/, "with the sitting's first live still (capture_interval)"],
  [
    /examining-machinery/,
    "fetched as /examining's module runs, beside its first render; the sitting's opening waits for it (the exam's effects, the recording and the wider view)",
  ],
  [
    /exam-thunks/,
    "with /examining's machinery (its exam-listeners import them); the login and finish buttons",
  ],
  [
    /monitor-pane/,
    "from the console's first render, while the first matching poll is on its way (the panes show its answer)",
  ],
  [
    /tester\/components\/chat-panel/,
    "right after /examining's first render, beside its machinery (the examinee's chat shows once the sitting is known)",
  ],
  [
    /chat-items/,
    "right after the first render of a page with the examinee's chat (before a message can arrive)",
  ],
  [
    /(^|[_/])devices[-.]/,
    'when the live channel starts without the camera, or the identity check sends its head shot',
  ],
  [/qrcode/, 'when the phone pairing panel shows its QR code (/examining)'],
  [/index\.browser/, 'with the AWS SDK that needs it (its signing code: @smithy/core)'],
];
const whenOf = (key) => WHEN.find(([re]) => re.test(key))?.[1] ?? '(when: unknown — check)';
const isPageOrText = (k) => /^src\/routes\/.+-page\.tsx$/.test(k) || /^src\/i18n\/locales\//.test(k);
const importers = new Map();
// A dynamically imported chunk's own dynamic imports count too (the S3 SDK behind the recording's media).
const queue = [
  ['entry', entrySet],
  ...rows.map((r) => [r.route, closure(`src/routes/${r.route}`, new Set(entrySet))]),
];
const viaName = (d) => `via ${d.replace(/^.*\//, '')}`;
while (queue.length > 0) {
  const [who, keys] = queue.shift();
  for (const k of keys)
    for (const d of manifest[k].dynamicImports ?? []) {
      if (isPageOrText(d)) continue;
      if (!importers.has(d)) queue.push([viaName(d), closure(d)]);
      importers.set(d, (importers.get(d) ?? new Set()).add(who));
    }
}
// What is surely loaded when a dynamic chunk is imported: what every one of its importers has loaded.
const viaKey = new Map([...importers.keys()].map((d) => [viaName(d), d]));
const loadedMemo = new Map();
function loadedBy(who) {
  if (who === 'entry') return entrySet;
  if (!viaKey.has(who)) return closure(`src/routes/${who}`, new Set(entrySet));
  if (loadedMemo.has(who)) return loadedMemo.get(who) ?? entrySet;
  loadedMemo.set(who, null);
  const d = viaKey.get(who);
  const loaded = new Set([...closure(d), ...baseOf(d)]);
  loadedMemo.set(who, loaded);
  return loaded;
}
function baseOf(d) {
  let base = null;
  for (const who of importers.get(d) ?? []) {
    const l = loadedBy(who);
    base = base === null ? new Set(l) : new Set([...base].filter((k) => l.has(k)));
  }
  return base ?? entrySet;
}
if (importers.size > 0) {
  console.log(
    'chunks imported dynamically (what each adds to its importers) raw KB   gzip KB  imported by; when',
  );
  for (const [d, who] of [...importers].sort(([a], [b]) => a.localeCompare(b))) {
    const base = baseOf(d);
    const s = sum([...closure(d)].filter((k) => !base.has(k)));
    const by = who.has('entry') ? 'entry' : who.size === 1 ? [...who][0] : `${who.size} importers`;
    console.log(`${d.slice(0, 64).padEnd(64)} ${kb(s.raw)}  ${kb(s.gz)}  ${by}; ${whenOf(d)}`);
  }
}
let cssGz = 0;
for (const c of new Set(Object.values(manifest).flatMap((m) => m.css ?? []))) cssGz += size(c).gzip;
console.log(`CSS total: ${kb(cssGz)} KB gzip`);
let largest = { file: '', gz: 0 };
for (const m of Object.values(manifest))
  if (!m.isEntry && m.file.endsWith('.js')) {
    const s = size(m.file);
    if (s.gzip > largest.gz) largest = { file: m.file, gz: s.gzip };
  }
console.log(`largest lazy chunk: ${largest.file} ${kb(largest.gz)} KB gzip`);

// The goals (research/perf-reliability.md FE-1, FE-2), on what a route loads before its first render in
// Japanese: its JS, texts included.
const verdict = (value, goal) =>
  value <= goal * 1024 ? 'goal met' : `over goal by ${((value - goal * 1024) / 1024).toFixed(1)} KB`;
const total = (r) => r.gz;
const login = rows.find((r) => r.route === 'open/login-page.tsx');
const worst = [...rows].sort((a, b) => total(b) - total(a));
const over = worst.filter((r) => total(r) > 170 * 1024);
console.log('\ngoals (gzip, JS before the first render, texts included):');
if (login) console.log(`  login route ≤ 110 KB: ${kb(total(login))} KB — ${verdict(total(login), 110)}`);
console.log(
  `  every route ≤ 170 KB: largest ${worst[0].route} ${kb(total(worst[0]))} KB — ${verdict(total(worst[0]), 170)}` +
    (over.length > 0 ? ` (${over.length} of ${rows.length} routes over)` : ''),
);
console.log(`  every lazy chunk ≤ 60 KB: largest ${kb(largest.gz)} KB — ${verdict(largest.gz, 60)}`);

// TypeBox in the browser: every chunk's source map names the modules in it.
const assets = path.join(dist, 'assets');
const leaks = [];
for (const file of readdirSync(assets).filter((f) => f.endsWith('.js'))) {
  const mapFile = path.join(assets, `${file}.map`);
  if (!existsSync(mapFile)) {
    // A chunk without a map (the bundler's own runtime): TypeBox marks every schema with a '~kind' key.
    if (readFileSync(path.join(assets, file), 'utf8').includes('~kind'))
      leaks.push({ file, why: "no source map, and it has TypeBox's '~kind' schema marker" });
    continue;
  }
  const sources = JSON.parse(readFileSync(mapFile, 'utf8')).sources ?? [];
  const typebox = sources.filter((s) => /node_modules\/typebox\//.test(s));
  if (typebox.length === 0) continue;
  const contract = sources.filter((s) => /(^|\/)contract\//.test(s)).map((s) => s.replace(/^(\.\.\/)+/, ''));
  leaks.push({
    file,
    why: `${typebox.length} TypeBox module(s); contract modules in it: ${contract.join(', ') || 'none'}`,
  });
}
if (leaks.length > 0) {
  console.error('\n✖ TYPEBOX IN THE BROWSER BUNDLE: these chunks carry TypeBox:');
  for (const l of leaks) console.error(`  ${l.file}: ${l.why}`);
  console.error(
    '  src/ must import values only from contract/constants/* and schema modules only with `import type`.',
  );
  process.exit(1);
}
console.log('TypeBox in browser chunks: none');

// Chunks that import each other (statically) in a cycle.
const cycles = [];
const state = new Map();
const visit = (k, trail) => {
  state.set(k, 'open');
  trail.push(k);
  for (const i of manifest[k].imports ?? []) {
    if (state.get(i) === 'open') cycles.push([...trail.slice(trail.indexOf(i)), i]);
    else if (!state.has(i)) visit(i, trail);
  }
  trail.pop();
  state.set(k, 'done');
};
for (const k of Object.keys(manifest)) if (!state.has(k)) visit(k, []);
if (cycles.length > 0) {
  console.error('\n✖ CHUNKS IMPORT EACH OTHER IN A CYCLE (vite.config.ts loadedAwareChunks):');
  for (const c of cycles) console.error(`  ${c.map((k) => manifest[k].file).join(' → ')}`);
  process.exit(1);
}
console.log('chunk import cycles: none');
