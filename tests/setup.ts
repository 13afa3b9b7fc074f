import '@testing-library/jest-dom/vitest';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { cleanup } from '@testing-library/react';
import { server } from './msw/server';
import { ALL_NAMESPACES, initI18n, loadNamespaces } from '../src/i18n';
import { setDefaultFeatures } from '../src/app/features';
import { ALL_FEATURES } from '../src/app/all-features';

initI18n('ja');
// In the app, features and their texts load with their routes; tests start with all of them.
await loadNamespaces(ALL_NAMESPACES);
setDefaultFeatures(ALL_FEATURES);

beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => {
  server.resetHandlers();
  cleanup();
  sessionStorage.clear();
  localStorage.clear();
});
afterAll(() => server.close());
