// npm run bench: prints figures (a missed goal never fails it). Each bench/*.mjs prints its own section.
// bench/monitoring.mjs and bench/captures.mjs exit non-zero only when their set-up broke (no figures), and
// bench/bundle-size.mjs when a browser chunk carries TypeBox (a broken import rule, not a missed goal); npm run
// bench then still runs the others and exits non-zero at the end, naming them. `npm run bench -- captures` runs
// only the benches whose file name contains a given word.
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { root, run } from './lib.mjs';

/** Benches whose non-zero exit means "set-up broke" (or a broken rule) rather than a missed goal. */
const SETUP_MUST_WORK = new Set(['monitoring.mjs', 'captures.mjs', 'bundle-size.mjs']);

const only = process.argv.slice(2);
const benches = readdirSync(path.join(root, 'bench'))
  .filter((f) => f.endsWith('.mjs'))
  .filter((f) => only.length === 0 || only.some((o) => f.includes(o)))
  .sort();
const broken = [];
for (const b of benches) {
  console.log(`\n=== ${b} ===`);
  const status = run(process.execPath, [path.join(root, 'bench', b)], { allowFail: true });
  if (status !== 0 && SETUP_MUST_WORK.has(b)) broken.push(b);
}
if (broken.length) {
  console.error(`\n✖ failed: ${broken.join(', ')} (see its last lines above)`);
  process.exit(1);
}
