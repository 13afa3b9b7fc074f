import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { App } from '../lib/app-types';

const here = path.dirname(fileURLToPath(import.meta.url));

/**
 * Mounts the local cloud stand-ins (KVS signaling, S3) found as `standins/<name>/plugin.ts`. Each decides
 * from the server configuration whether it is on (it is off when the server points at AWS).
 */
export async function loadStandins(app: App): Promise<void> {
  const entries = await readdir(here, { withFileTypes: true });
  for (const e of entries.filter((d) => d.isDirectory()).sort((a, b) => a.name.localeCompare(b.name))) {
    for (const name of ['plugin.ts', 'plugin.js']) {
      const file = path.join(here, e.name, name);
      const exists = await readdir(path.join(here, e.name)).then((f) => f.includes(name));
      if (!exists) continue;
      const mod = (await import(pathToFileURL(file).href)) as { default: (app: App) => Promise<void> };
      await app.register(mod.default);
      break;
    }
  }
}
