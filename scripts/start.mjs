// npm start. In development: build the SPA when needed, then run the reference server from its TypeScript
// sources (tsx). With NODE_ENV=production: run the compiled server (dist-server/, from `npm run build`) with
// plain Node: no tsx, no Vite, nothing built at start.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { buildIfNeeded, root } from './lib.mjs';

/** Runs the server as a child; a SIGTERM/SIGINT to npm start (a service manager, Ctrl-C) reaches it. */
function runServer(args) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { stdio: 'inherit', cwd: root });
    for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

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
  code = await runServer([server, ...args]);
} else {
  buildIfNeeded();
  code = await runServer(['--import', 'tsx', path.join(root, 'server/src/server.ts'), ...args]);
}
process.exit(code);
