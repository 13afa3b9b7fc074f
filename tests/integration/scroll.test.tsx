import { act, render, screen, waitFor } from '@testing-library/react';
import { Provider } from 'react-redux';
import { I18nextProvider } from 'react-i18next';
import { createMemoryRouter, RouterProvider } from 'react-router-dom';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { setupStore } from '../../src/app/store';
import { i18next } from '../../src/i18n';
import { RootLayout } from '../../src/routes/root-layout';
import type { RouteDef } from '../../src/routes/paths';

// Spec §2: navigation scrolls to top unless a route opts out, and restores the saved position or hash target.
// jsdom does not scroll, so the window's scroll position is set by hand and the scroll calls are observed.
let scrollY = 0;
const scrollTo = vi.fn();
const scrollIntoView = vi.fn();
beforeAll(() => {
  vi.spyOn(window, 'scrollTo').mockImplementation(scrollTo as unknown as typeof window.scrollTo);
  Object.defineProperty(window, 'scrollY', { configurable: true, get: () => scrollY });
  Element.prototype.scrollIntoView = scrollIntoView;
});
afterAll(() => {
  vi.restoreAllMocks();
  Reflect.deleteProperty(window, 'scrollY');
  Reflect.deleteProperty(Element.prototype, 'scrollIntoView');
});
beforeEach(() => {
  scrollY = 0;
  scrollTo.mockClear();
  scrollIntoView.mockClear();
});

function page(def: RouteDef) {
  return {
    path: def.path,
    handle: { route: def },
    loader: () => null,
    element: (
      <section>
        <h1>{def.path}</h1>
        <p id="target">target</p>
      </section>
    ),
  };
}

async function renderLayout() {
  const router = createMemoryRouter(
    [
      {
        element: <RootLayout />,
        children: [
          page({ path: '/a', page: 'management', bodyId: 'PRE00007' }),
          page({ path: '/b', page: 'logins', bodyId: 'PRE00007' }),
          page({ path: '/keep', page: 'logview', bodyId: 'PRE00007', keepScroll: true }),
        ],
      },
    ],
    { initialEntries: ['/a'] },
  );
  render(
    <Provider store={setupStore()}>
      <I18nextProvider i18n={i18next}>
        <RouterProvider router={router} />
      </I18nextProvider>
    </Provider>,
  );
  await screen.findByRole('heading', { name: '/a' });
  return router;
}

async function go(router: Awaited<ReturnType<typeof renderLayout>>, to: string | number, heading: string) {
  scrollTo.mockClear();
  await act(() => (typeof to === 'number' ? router.navigate(to) : router.navigate(to)));
  await screen.findByRole('heading', { name: heading });
}

function scrolledAt(y: number) {
  scrollY = y;
  window.dispatchEvent(new Event('scroll'));
}

describe('scrolling on navigation (spec §2)', () => {
  it('scrolls to top on a new page', async () => {
    const router = await renderLayout();
    scrolledAt(400);
    await go(router, '/b', '/b');
    expect(scrollTo).toHaveBeenLastCalledWith(0, 0);
  });

  it('keeps the position on a route that opts out', async () => {
    const router = await renderLayout();
    scrolledAt(320);
    await go(router, '/keep', '/keep');
    await waitFor(() => expect(scrollTo).toHaveBeenLastCalledWith(0, 320));
  });

  it('restores the saved position on back', async () => {
    const router = await renderLayout();
    scrolledAt(250);
    await go(router, '/b', '/b');
    scrolledAt(0);
    await go(router, -1, '/a');
    await waitFor(() => expect(scrollTo).toHaveBeenLastCalledWith(0, 250));
  });

  it('scrolls to the hash target instead of the top', async () => {
    const router = await renderLayout();
    await go(router, '/b#target', '/b');
    await waitFor(() => expect(scrollIntoView).toHaveBeenCalled());
    expect(scrollIntoView.mock.contexts.at(-1)).toBe(document.getElementById('target'));
    expect(scrollTo).not.toHaveBeenCalledWith(0, 0);
  });

  it('sets the body id of the route', async () => {
    await renderLayout();
    await waitFor(() => expect(document.body.id).toBe('PRE00007'));
  });
});
