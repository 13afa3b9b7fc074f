// npm start: build the SPA when needed, then run the reference server (migrate, seed the demo, serve).
import path from 'node:path';
import { buildIfNeeded, root, runAsync } from './lib.mjs';

buildIfNeeded();
const code = await runAsync(process.execPath, [
  '--import',
  'tsx',
  path.join(root, 'server/src/server.ts'),
  ...process.argv.slice(2),
]);
process.exit(code);
