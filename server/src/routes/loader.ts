import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { App } from '../lib/app-types';

const here = path.dirname(fileURLToPath(import.meta.url));

async function findRouteModules(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await findRouteModules(full)));
    else if (entry.name === 'index.ts' || entry.name === 'index.js') out.push(full);
  }
  return out.sort();
}

/**
 * Registers every `routes/api/v1/<group>/index.ts` under the prefix /api/v1. A module's default export is a
 * Fastify plugin declaring its paths relative to /api/v1 (e.g. `/tester/detail.php`).
 */
export async function loadApiRoutes(app: App): Promise<void> {
  const base = path.join(here, 'api', 'v1');
  for (const file of await findRouteModules(base)) {
    const mod = (await import(pathToFileURL(file).href)) as { default: (app: App) => Promise<void> };
    await app.register(mod.default, { prefix: '/api/v1' });
  }
}
