import { rm } from 'node:fs/promises';

/**
 * Removes the e2e servers' data directories (database, recordings, images) after the run, so repeated runs do not
 * fill the temporary directory. A failing run keeps its traces under test-results/; the data directory is only
 * the server's state, rebuilt at the next start.
 */
export default async function globalTeardown(): Promise<void> {
  const dir = process.env.PROCTOR_E2E_DATA_DIR;
  if (!dir || !dir.includes('proctor-e2e-')) return;
  // The live specs' server keeps its own directory beside it (playwright.config.ts).
  for (const d of [dir, `${dir}-live`]) await rm(d, { recursive: true, force: true });
}
