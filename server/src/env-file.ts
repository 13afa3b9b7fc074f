import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseEnv } from 'node:util';

/**
 * Loads `.env` (or the file ENV_FILE names) into process.env before the configuration is read. A variable the
 * environment already has wins, so a service manager or a shell can override the file. A missing default
 * `.env` is fine; a missing ENV_FILE is an error (a typo must not start a server on defaults).
 */
export function loadEnvFile(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): string | null {
  const named = env.ENV_FILE;
  const file = path.resolve(cwd, named || '.env');
  if (!existsSync(file)) {
    if (named) throw new Error(`ENV_FILE names ${file}, which does not exist.`);
    return null;
  }
  for (const [k, v] of Object.entries(parseEnv(readFileSync(file, 'utf8')))) {
    if (env[k] === undefined) env[k] = v;
  }
  return file;
}
