import { defineConfig } from 'vitest/config';
import react from '@vitejs/plugin-react';
import { appAliases } from './vite.config.ts';

export default defineConfig({
  test: {
    // Vitest's default on a 2-core machine is one worker (cores − 1): the files then run one after another while
    // most of their time is spent waiting (PGlite snapshots loading, child processes, sockets). Two workers keep
    // both cores busy; each server file still has its own database and app.
    maxWorkers: 2,
    projects: [
      {
        plugins: [react()],
        resolve: { alias: appAliases },
        define: { 'process.env.PACKAGE_VERSION': JSON.stringify('2.9.0') },
        test: {
          name: 'spa',
          environment: 'jsdom',
          globals: true,
          setupFiles: ['./tests/setup.ts'],
          include: ['src/**/*.test.{ts,tsx}', 'tests/**/*.test.{ts,tsx}'],
        },
      },
      {
        test: {
          name: 'server',
          environment: 'node',
          globals: true,
          include: ['server/**/*.test.ts'],
          globalSetup: ['./server/test/global-setup.ts'],
          // Silences are staged by backdating rows; the instance's own lag must not add to them (it depends on
          // how busy the machine is). The lag test stages another instance's lag instead.
          env: { MATCHING_LAG_METER: '0' },
          testTimeout: 30000,
          hookTimeout: 60000,
          pool: 'forks',
        },
      },
    ],
  },
});
