// npm start. In development: build the SPA when needed, then run the reference server from its TypeScript
// sources (tsx). With NODE_ENV=production: run the compiled server (dist-server/, from `npm run build`) with
// plain Node: no tsx, no Vite, nothing built at start.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { buildIfNeeded, root, runAsync } from './lib.mjs';

const args = process.argv.slice(2);
let code;
if (process.env.NODE_ENV === 'production') {
  const server = path.join(root, 'dist-server/server/src/server.js');
  for (const [file, what] of [
    [server, 'the compiled server (dist-server/)'],
    [path.join(root, 'dist/index.html'), 'the SPA (dist/)'],
  ]) {
    if (!existsSync(file)) {
      console.error(`NODE_ENV=production needs ${what}: run \`npm run build\` first.`);
      process.exit(1);
    }
  }
  code = await runAsync(process.execPath, [server, ...args]);
} else {
  buildIfNeeded();
  code = await runAsync(process.execPath, [
    '--import',
    'tsx',
    path.join(root, 'server/src/server.ts'),
    ...args,
  ]);
}
process.exit(code);
