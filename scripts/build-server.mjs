// Compiles the reference server (server/src and contract/) to JavaScript in dist-server/, one .js file per
// .ts file at the same relative path, so the route and stand-in loaders, the AI worker fork and the
// migrations folder work unchanged. esbuild transpiles; every import stays an import (packages come from
// node_modules at run time), and relative imports get the .js extension Node's ESM loader needs.
import { cpSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import * as esbuild from 'esbuild';
import { root } from './lib.mjs';

const out = path.join(root, 'dist-server');

function sources(dir) {
  const files = [];
  for (const e of readdirSync(path.join(root, dir), { withFileTypes: true })) {
    const rel = path.join(dir, e.name);
    if (e.isDirectory()) files.push(...sources(rel));
    else if (e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') && !e.name.endsWith('.d.ts'))
      files.push(rel);
  }
  return files;
}

/** Keeps every relative import external, pointing at the compiled sibling file (`./config` → `./config.js`). */
const perFile = {
  name: 'per-file',
  setup(build) {
    build.onResolve({ filter: /^\.\.?(\/|$)/ }, async (args) => {
      if (args.kind === 'entry-point' || args.pluginData?.perFile) return undefined;
      const r = await build.resolve(args.path, {
        kind: args.kind,
        resolveDir: args.resolveDir,
        importer: args.importer,
        pluginData: { perFile: true },
      });
      if (r.errors.length) return { errors: r.errors };
      let rel = path.relative(args.resolveDir, r.path).replace(/\.ts$/, '.js');
      if (!rel.startsWith('.')) rel = `./${rel}`;
      return { path: rel.split(path.sep).join('/'), external: true };
    });
  },
};

export async function buildServer() {
  rmSync(out, { recursive: true, force: true });
  const entryPoints = [...sources('server/src'), ...sources('contract')];
  await esbuild.build({
    absWorkingDir: root,
    entryPoints,
    outdir: out,
    outbase: root,
    bundle: true,
    packages: 'external',
    platform: 'node',
    format: 'esm',
    target: 'node20.19',
    sourcemap: 'linked',
    logLevel: 'warning',
    plugins: [perFile],
  });
  cpSync(path.join(root, 'server/src/db/migrations'), path.join(out, 'server/src/db/migrations'), {
    recursive: true,
  });
  // Node reads .js as ESM only under a package.json that says so.
  writeFileSync(path.join(out, 'package.json'), '{ "type": "module" }\n');
  return entryPoints.length;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const n = await buildServer();
  console.log(`Compiled the server: ${n} modules → dist-server/`);
}
