// npm run bench: prints figures (it never passes or fails). Each bench/*.mjs prints its own section.
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { root, run } from './lib.mjs';

const only = process.argv.slice(2);
const benches = readdirSync(path.join(root, 'bench'))
  .filter((f) => f.endsWith('.mjs'))
  .filter((f) => only.length === 0 || only.some((o) => f.includes(o)))
  .sort();
for (const b of benches) {
  console.log(`\n=== ${b} ===`);
  run(process.execPath, [path.join(root, 'bench', b)], { allowFail: true });
}
