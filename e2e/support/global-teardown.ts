import { rm } from 'node:fs/promises';

/**
 * Removes the e2e server's data directory (database, recordings, images) after the run, so repeated runs do not
 * fill the temporary directory. A failing run keeps its traces under test-results/; the data directory is only
 * the server's state, rebuilt at the next start.
 */
export default async function globalTeardown(): Promise<void> {
  const dir = process.env.PROCTOR_E2E_DATA_DIR;
  if (dir && dir.includes('proctor-e2e-')) await rm(dir, { recursive: true, force: true });
}
