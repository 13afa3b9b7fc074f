import { act, render, screen, waitFor } from '@testing-library/react';
import { useLayoutEffect } from 'react';
import {
  MemoryRouter,
  Route,
  Routes,
  useLocation,
  useNavigate,
  type NavigateFunction,
} from 'react-router-dom';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { useScrollRules } from '../../src/routes/scroll-rules';

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
  sessionStorage.clear();
});

let navigate: NavigateFunction = () => undefined;

/** The rules as the root layout uses them: /keep is a route that opts out of the scroll to top. */
function Pages() {
  const location = useLocation();
  const nav = useNavigate();
  useLayoutEffect(() => {
    navigate = nav;
  }, [nav]);
  useScrollRules(location.pathname === '/keep');
  const page = (path: string) => (
    <section>
      <h1>{path}</h1>
      <p id="target">target</p>
    </section>
  );
  return (
    <Routes>
      {['/a', '/b', '/keep'].map((p) => (
        <Route key={p} path={p} element={page(p)} />
      ))}
    </Routes>
  );
}

async function renderPages() {
  render(
    <MemoryRouter initialEntries={['/a']}>
      <Pages />
    </MemoryRouter>,
  );
  await screen.findByRole('heading', { name: '/a' });
}

async function go(to: string | number, heading: string) {
  scrollTo.mockClear();
  await act(async () => {
    if (typeof to === 'number') await navigate(to);
    else await navigate(to);
  });
  await screen.findByRole('heading', { name: heading });
}

function scrolledAt(y: number) {
  scrollY = y;
  window.dispatchEvent(new Event('scroll'));
}

describe('scrolling on navigation (spec §2)', () => {
  it('scrolls to top on a new page', async () => {
    await renderPages();
    scrolledAt(400);
    await go('/b', '/b');
    expect(scrollTo).toHaveBeenLastCalledWith(0, 0);
  });

  it('keeps the position on a route that opts out', async () => {
    await renderPages();
    scrolledAt(320);
    await go('/keep', '/keep');
    await waitFor(() => expect(scrollTo).toHaveBeenLastCalledWith(0, 320));
  });

  it('restores the saved position on back', async () => {
    await renderPages();
    scrolledAt(250);
    await go('/b', '/b');
    scrolledAt(0);
    await go(-1, '/a');
    await waitFor(() => expect(scrollTo).toHaveBeenLastCalledWith(0, 250));
  });

  it('keeps the positions across a reload (saved when the page is hidden)', async () => {
    await renderPages();
    scrolledAt(180);
    window.dispatchEvent(new Event('pagehide'));
    expect(JSON.parse(sessionStorage.getItem('scrollPositions') ?? '{}')).toEqual({ default: 180 });
  });

  it('scrolls to the hash target instead of the top', async () => {
    await renderPages();
    await go('/b#target', '/b');
    await waitFor(() => expect(scrollIntoView).toHaveBeenCalled());
    expect(scrollIntoView.mock.contexts.at(-1)).toBe(document.getElementById('target'));
    expect(scrollTo).not.toHaveBeenCalledWith(0, 0);
  });
});
