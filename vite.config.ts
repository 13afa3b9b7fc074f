import { createRequire } from 'node:module';
import path from 'node:path';
import { defineConfig, type Alias, type Plugin } from 'vite';
import react from '@vitejs/plugin-react';
import { compression } from 'vite-plugin-compression2';

const apiTarget = process.env.API_PROXY_TARGET ?? 'http://127.0.0.1:8080';

/**
 * react-router 7 exports only its development build (remix-run/react-router#12532, #14753), which keeps its
 * dev warnings in a production bundle. A build uses the package's own production files instead (same
 * version, same code, ENABLE_DEV_WARNINGS off); the dev server and tests keep the warnings.
 */
const reactRouterDist = path.join(
  path.dirname(createRequire(import.meta.url).resolve('react-router/package.json')),
  'dist/production',
);
const reactRouterProduction: Alias[] = [
  { find: /^react-router$/, replacement: path.join(reactRouterDist, 'index.mjs') },
  { find: /^react-router\/dom$/, replacement: path.join(reactRouterDist, 'dom-export.mjs') },
];

/**
 * Path aliases (tsconfig.app.json `paths`, ESLint's resolver in eslint.config.js, vitest.config.ts): `@/` is
 * src/, `@contract/` is contract/, so an import says which layer it reaches instead of how many `../` away.
 */
export const appAliases: Alias[] = [
  { find: /^@\//, replacement: `${path.resolve(import.meta.dirname, 'src')}/` },
  { find: /^@contract\//, replacement: `${path.resolve(import.meta.dirname, 'contract')}/` },
];

/**
 * With the iOS 13 target the bundler reports each BigInt literal (iOS 13 has no BigInt) with a code frame.
 * One line naming the packages replaces them; the literals stay as they are.
 */
function summariseBigIntLiterals(): Plugin {
  const packages = new Set<string>();
  return {
    name: 'summarise-bigint-literals',
    apply: 'build',
    onLog(_level, log) {
      if (log.code !== 'TOLERATED_TRANSFORM' || !/Big integer/i.test(log.message)) return;
      const where = log.id ?? log.loc?.file ?? log.message;
      packages.add(/node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(where)?.[1] ?? 'src');
      return false;
    },
    closeBundle() {
      if (packages.size > 0)
        this.warn(`BigInt literals (unsupported on iOS 13) in: ${[...packages].sort().join(', ')}`);
    },
  };
}

type ModuleGraph = {
  getModuleInfo(id: string): {
    isEntry: boolean;
    importedIds: readonly string[];
    dynamicallyImportedIds: readonly string[];
    importers: readonly string[];
    dynamicImporters: readonly string[];
  } | null;
};

/**
 * Chunks keyed by what is already loaded. The bundler's own split puts a module into a chunk per set of entries
 * (pages and lazily imported parts) that import it, so a module every examinee page has also lands in a chunk
 * of its own when a part those pages load later (a dialog, the recording) imports it too: more chunks, each a
 * gzip stream and a request (23 above the entry on /examining). Here a lazily imported part does not count for
 * a module that every page or part loading it has already loaded (Rollup's rule), and modules needed by the
 * same pages and parts share one chunk. Modules only one page or part needs stay in its own chunk (null: the
 * bundler's split puts them there), unless another part reaches them too: then they go together into one
 * chunk of that page's. Dependencies are not pulled along (`includeDependenciesRecursively: false`): each
 * module's own set decides, and bench/bundle-size.mjs fails when the chunks import each other in a cycle.
 */
function loadedAwareChunks() {
  let chunkOf: Map<string, string | null> | null = null;

  const plan = (graph: ModuleGraph, anyId: string): Map<string, string | null> => {
    const info = (id: string) => graph.getModuleInfo(id);
    // The entry (index.html's script) and every module reachable from it.
    const roots = new Set<string>();
    const up = [anyId];
    const seenUp = new Set<string>();
    while (up.length > 0) {
      const id = up.pop()!;
      if (seenUp.has(id)) continue;
      seenUp.add(id);
      const m = info(id);
      if (!m) continue;
      if (m.isEntry) roots.add(id);
      up.push(...m.importers, ...m.dynamicImporters);
    }
    const staticClosure = (start: string, stop: ReadonlySet<string>) => {
      const out = new Set<string>();
      const stack = [start];
      while (stack.length > 0) {
        const id = stack.pop()!;
        if (out.has(id) || stop.has(id)) continue;
        out.add(id);
        for (const n of info(id)?.importedIds ?? []) stack.push(n);
      }
      return out;
    };
    const initial = new Set<string>();
    for (const r of roots) for (const id of staticClosure(r, new Set())) initial.add(id);
    // Lazily imported modules (pages, parts) outside the initial chunk, and what each imports statically.
    const lazy = new Set<string>();
    const all = new Set<string>(initial);
    const walk = [...initial];
    while (walk.length > 0) {
      const id = walk.pop()!;
      const m = info(id);
      if (!m) continue;
      for (const d of m.dynamicallyImportedIds) if (!initial.has(d)) lazy.add(d);
      for (const n of [...m.importedIds, ...m.dynamicallyImportedIds])
        if (!all.has(n)) {
          all.add(n);
          walk.push(n);
        }
    }
    const closure = new Map([...lazy].map((d) => [d, staticClosure(d, initial)] as const));
    // Which lazy modules load each lazy module ('initial' when the entry does), and what is surely in memory
    // when it runs: what every one of them has, itself or surely (a greatest fixed point from "everything").
    const loaders = new Map<string, Set<string>>();
    for (const d of lazy) {
      const by = new Set<string>();
      for (const i of info(d)?.dynamicImporters ?? []) {
        if (initial.has(i)) by.add('initial');
        for (const [x, c] of closure) if (c.has(i)) by.add(x);
      }
      loaders.set(d, by);
    }
    const sure = new Map<string, Set<string> | null>([...lazy].map((d) => [d, null]));
    for (let changed = true; changed;) {
      changed = false;
      for (const d of lazy) {
        // null: no loader known yet ("everything").
        let next = null as Set<string> | null;
        for (const l of loaders.get(d)!) {
          if (l === 'initial') {
            next = new Set();
            break;
          }
          const s = sure.get(l) ?? null;
          if (s === null) continue;
          const avail = new Set([...closure.get(l)!, ...s]);
          const prev: Set<string> | null = next;
          next = prev === null ? avail : new Set([...prev].filter((x) => avail.has(x)));
        }
        const before = sure.get(d) ?? null;
        if (next !== null && (before === null || next.size !== before.size)) {
          sure.set(d, next);
          changed = true;
        }
      }
    }
    const out = new Map<string, string | null>();
    const names = new Map<string, string>();
    for (const id of all) {
      if (initial.has(id) || lazy.has(id)) continue;
      const reaching = [...closure].filter(([, c]) => c.has(id)).map(([x]) => x);
      const needs = reaching.filter((x) => !(sure.get(x) ?? new Set()).has(id)).sort();
      if (needs.length === 0 || (needs.length === 1 && reaching.length === 1)) {
        out.set(id, null);
        continue;
      }
      const key = needs.join('|');
      if (!names.has(key)) {
        const base = path.basename(needs[0]!).replace(/\.[^.]+$/, '');
        names.set(key, `${needs.length === 1 ? base : 'shared'}-${names.size}`);
      }
      out.set(id, names.get(key)!);
    }
    return out;
  };

  return {
    debugName: 'loaded-aware',
    includeDependenciesRecursively: false,
    name: (id: string, ctx: ModuleGraph) => {
      chunkOf ??= plan(ctx, id);
      return chunkOf.get(id) ?? null;
    },
  };
}

export default defineConfig(({ command }) => ({
  plugins: [
    react(),
    summariseBigIntLiterals(),
    // Brotli and gzip copies beside each text asset, made once at build; the server sends the one the browser
    // accepts (@fastify/static preCompressed), so no request pays for compression.
    compression({ include: /\.(js|mjs|css|html|svg|json|wasm)$/, threshold: 1024 }),
  ],
  define: {
    // The KVS SDK reads this at module load (SDK issue #321); Vite must define it for the browser.
    'process.env.PACKAGE_VERSION': JSON.stringify('2.9.0'),
  },
  resolve: { alias: [...appAliases, ...(command === 'build' ? reactRouterProduction : [])] },
  build: {
    outDir: 'dist',
    sourcemap: true,
    manifest: true,
    // The entry holds every module the first render of any route needs (see codeSplitting below), ≈ 510 kB
    // minified; lazy chunks stay far below. The budgets that matter are gzip, in bench/bundle-size.mjs.
    chunkSizeWarningLimit: 600,
    rolldownOptions: {
      output: {
        // Every module the entry imports statically is loaded on every route before the first render, so it
        // goes into the entry chunk instead of ~10 shared chunks: one request, one gzip stream (≈ 5 KB gzip
        // less on every route). Lazy chunks import what they share with the entry from it.
        codeSplitting: { groups: [{ name: 'initial', tags: ['$initial'] }, loadedAwareChunks()] },
      },
    },
    // Spec §5 minimum environments: Chrome/Edge 80, Mac Safari 14, iOS 13 (Chrome on iOS runs WebKit). Vite's
    // default (Chrome 107, Safari 16) emits syntax those browsers cannot parse (`??=`, `||=`), so the app would
    // not even reach its own browser check there. Costs ≈ 1.6 KB gzip on the login route.
    target: ['chrome80', 'edge80', 'safari14', 'ios13'],
  },
  server: {
    host: '127.0.0.1',
    port: 5173,
    proxy: {
      '/api': apiTarget,
      '/config.json': apiTarget,
      '/s/': apiTarget,
      '/kvs': { target: apiTarget, ws: true },
      '/s3': apiTarget,
      '/demo-exam': apiTarget,
    },
  },
}));
