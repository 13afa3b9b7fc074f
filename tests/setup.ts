import '@testing-library/jest-dom/vitest';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { cleanup } from '@testing-library/react';
import { server } from './msw/server';
import { ALL_NAMESPACES, initI18n, loadNamespaces } from '../src/i18n';
import { setDefaultFeatures } from '../src/app/features';

initI18n('ja');
// In the app, features and their texts load with their routes; tests start with all of them. The features are
// imported in a hook, after the test file's vi.mock calls are registered, so their listeners see the mocks.
await loadNamespaces(ALL_NAMESPACES);
beforeEach(async () => {
  const { ALL_FEATURES } = await import('../src/app/all-features');
  setDefaultFeatures(ALL_FEATURES);
});

beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => {
  server.resetHandlers();
  cleanup();
  sessionStorage.clear();
  localStorage.clear();
});
afterAll(() => server.close());
