import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

const apiTarget = process.env.API_PROXY_TARGET ?? 'http://127.0.0.1:8080';

export default defineConfig({
  plugins: [react()],
  define: {
    // The KVS SDK reads this at module load (SDK issue #321); Vite must define it for the browser.
    'process.env.PACKAGE_VERSION': JSON.stringify('2.9.0'),
  },
  build: {
    outDir: 'dist',
    sourcemap: true,
    manifest: true,
    chunkSizeWarningLimit: 400,
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
});
