import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';

export const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');

/** Newest modification time under the given paths (files or folders). */
export function newestMtime(paths) {
  let newest = 0;
  const walk = (p) => {
    if (!existsSync(p)) return;
    const st = statSync(p);
    if (st.isDirectory()) {
      for (const e of readdirSync(p)) if (e !== 'node_modules') walk(path.join(p, e));
    } else newest = Math.max(newest, st.mtimeMs);
  };
  for (const p of paths) walk(path.join(root, p));
  return newest;
}

/** Builds the SPA when dist/ is missing or older than its sources. */
export function buildIfNeeded() {
  const built = path.join(root, 'dist', 'index.html');
  const srcTime = newestMtime(['src', 'public', 'index.html', 'vite.config.ts', 'package.json', 'contract']);
  if (existsSync(built) && statSync(built).mtimeMs >= srcTime) return false;
  console.log('Building the SPA (vite build)…');
  run(process.execPath, [path.join(root, 'node_modules/vite/bin/vite.js'), 'build', '--logLevel', 'warn']);
  return true;
}

/** Runs a command, inheriting stdio; exits the process on failure unless allowFail. */
export function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { stdio: 'inherit', cwd: root, ...opts });
  if (r.status !== 0 && !opts.allowFail) {
    console.error(`\n✖ ${cmd} ${args.join(' ')} exited with ${r.status ?? r.signal}`);
    process.exit(r.status ?? 1);
  }
  return r.status ?? 1;
}

export function runAsync(cmd, args, opts = {}) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { stdio: 'inherit', cwd: root, ...opts });
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

/** Path of a Chromium binary, installing Debian's package when possible. Returns null when unavailable. */
export function ensureChromium() {
  const candidates = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].filter(
    Boolean,
  );
  for (const c of candidates) if (existsSync(c)) return c;
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  const hasApt = existsSync('/usr/bin/apt-get');
  if (isRoot && hasApt) {
    console.log('Chromium is missing: installing Debian packages chromium and fonts-ipafont-gothic…');
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    spawnSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
    const r = spawnSync('apt-get', ['install', '-y', '-qq', 'chromium', 'fonts-ipafont-gothic'], {
      stdio: 'inherit',
      env,
    });
    if (r.status === 0 && existsSync('/usr/bin/chromium')) return '/usr/bin/chromium';
  }
  console.error(
    'Chromium was not found. Install it, then run npm test again:\n' +
      '  Debian/Ubuntu (as root): apt-get update && apt-get install -y chromium fonts-ipafont-gothic\n' +
      '  or point CHROMIUM_PATH at an existing Chromium/Chrome binary.',
  );
  return null;
}

/**
 * Installs missing Debian packages (as root with apt-get), else prints what to install. `names` maps a
 * command or file that must exist to its package, e.g. { convert: 'imagemagick' }. Returns the missing ones.
 */
export function ensureDebianPackages(names) {
  const present = (what) =>
    what.startsWith('/') ? existsSync(what) : spawnSync('sh', ['-c', `command -v ${what}`]).status === 0;
  let missing = [
    ...new Set(
      Object.entries(names)
        .filter(([what]) => !present(what))
        .map(([, pkg]) => pkg),
    ),
  ];
  if (!missing.length) return [];
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (isRoot && existsSync('/usr/bin/apt-get')) {
    console.log(`Installing Debian packages: ${missing.join(' ')}…`);
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    spawnSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
    spawnSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...missing], {
      stdio: 'inherit',
      env,
    });
    missing = [
      ...new Set(
        Object.entries(names)
          .filter(([what]) => !present(what))
          .map(([, pkg]) => pkg),
      ),
    ];
  }
  if (missing.length) {
    console.warn(
      `Tests that need ${missing.join(', ')} will be skipped. Install with:\n` +
        `  apt-get install -y --no-install-recommends ${missing.join(' ')}`,
    );
  }
  return missing;
}
