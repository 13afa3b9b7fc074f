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
        codeSplitting: { groups: [{ name: 'initial', tags: ['$initial'] }] },
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
