// npm run dev: the reference server on PORT (default 8080) and Vite on :5173 proxying /api, /s, /kvs, /s3 to it.
import path from 'node:path';
import { spawn } from 'node:child_process';
import { root } from './lib.mjs';

const port = process.env.PORT ?? '8080';
const server = spawn(
  path.join(root, 'node_modules/.bin/tsx'),
  ['watch', path.join(root, 'server/src/server.ts')],
  {
    stdio: 'inherit',
    cwd: root,
    env: { ...process.env, PORT: port },
  },
);
const vite = spawn(process.execPath, [path.join(root, 'node_modules/vite/bin/vite.js')], {
  stdio: 'inherit',
  cwd: root,
  env: { ...process.env, API_PROXY_TARGET: `http://127.0.0.1:${port}` },
});
const stop = () => {
  server.kill('SIGTERM');
  vite.kill('SIGTERM');
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
server.on('exit', stop);
vite.on('exit', stop);
