import '@testing-library/jest-dom/vitest';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { cleanup } from '@testing-library/react';
import { server } from './msw/server';
import { initI18n } from '../src/i18n';
import { loadAllTexts } from '../src/i18n/all-texts';
import { setDefaultFeatures } from '../src/app/features';

// jsdom has no matchMedia; react-bootstrap's Offcanvas (the console's chat panel) asks it for the breakpoint.
// Every query answers "no match", as a wide desktop window without special preferences would.
if (typeof window.matchMedia !== 'function') {
  window.matchMedia = (query: string) =>
    ({
      matches: false,
      media: query,
      onchange: null,
      addListener: () => undefined,
      removeListener: () => undefined,
      addEventListener: () => undefined,
      removeEventListener: () => undefined,
      dispatchEvent: () => false,
    }) as MediaQueryList;
}

await initI18n('ja');
// In the app, features and their texts load with their routes (in the page's language and Japanese, its
// fallback); tests start with all of them in every language. The features are
// imported in a hook, after the test file's vi.mock calls are registered, so their listeners see the mocks.
await loadAllTexts();
// The API client loads axios with the first request (api/client.ts); loading it here keeps that first request
// as quick as the others, as in the app after start-up.
await import('axios');
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
