// npm run admin -- <command>: accounts and groups (server/src/cli/admin.ts). Runs the compiled CLI under
// NODE_ENV=production (or when tsx is not installed, as after `npm ci --omit=dev`), else the sources via tsx.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { root, runAsync } from './lib.mjs';

const compiled = path.join(root, 'dist-server/server/src/cli/admin.js');
const hasTsx = existsSync(path.join(root, 'node_modules/tsx/package.json'));
const useCompiled = process.env.NODE_ENV === 'production' || !hasTsx;
if (useCompiled && !existsSync(compiled)) {
  console.error('The compiled CLI is missing: run `npm run build` first.');
  process.exit(1);
}
const args = useCompiled
  ? [compiled, ...process.argv.slice(2)]
  : ['--import', 'tsx', path.join(root, 'server/src/cli/admin.ts'), ...process.argv.slice(2)];
// CSV paths are relative to where the command was typed; the server's configuration to the project root.
process.exit(
  await runAsync(process.execPath, args, {
    env: { ...process.env, INIT_CWD: process.env.INIT_CWD ?? process.cwd() },
  }),
);
