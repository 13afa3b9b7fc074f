import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * One process at a time on an embedded (PGlite) data directory: PGlite has no server in front of its files,
 * so a second process opening them (the admin CLI while the server runs) would corrupt them. The holder's pid
 * is written to `<dir>/.lock`; a lock whose process is gone is taken over.
 */
export function lockDataDir(dir: string): { release(): void } {
  const file = path.join(dir, '.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(file, String(process.pid), { flag: 'wx' });
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        rmSync(file, { force: true });
      };
      process.once('exit', release);
      return { release };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      const pid = Number(readFileSync(file, 'utf8').trim());
      if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && alive(pid)) {
        throw new Error(
          `The database in ${dir} is in use by process ${pid} (the server?). Stop it first, use the Accounts ` +
            'page of the running server, or use PostgreSQL (DATABASE_URL), which any number of processes can share.',
          { cause: e },
        );
      }
      rmSync(file, { force: true });
    }
  }
  throw new Error(`Could not lock ${dir}.`);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
