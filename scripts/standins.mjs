// npm run standins: the cloud stand-ins (KVS signaling, S3, STS) as one process of their own, for several app
// instances to share (README "Running several instances"). From the TypeScript sources (tsx), or with
// NODE_ENV=production from the compiled server (dist-server/, `npm run build`).
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { root } from './lib.mjs';

const compiled = path.join(root, 'dist-server/server/src/standins/main.js');
let args;
if (process.env.NODE_ENV === 'production') {
  if (!existsSync(compiled)) {
    console.error('NODE_ENV=production needs the compiled server (dist-server/): run `npm run build` first.');
    process.exit(1);
  }
  args = [compiled, ...process.argv.slice(2)];
} else {
  args = ['--import', 'tsx', path.join(root, 'server/src/standins/main.ts'), ...process.argv.slice(2)];
}
const child = spawn(process.execPath, args, { stdio: 'inherit', cwd: root });
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
