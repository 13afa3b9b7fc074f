import { act, render, screen, waitFor } from '@testing-library/react';
import { useEffect } from 'react';
import { MemoryRouter, useLocation } from 'react-router-dom';
import { AppProviders, AppRouterContent } from '../../src/app/app';
import { navigateTo } from '../../src/app/navigation';
import { setupStore } from '../../src/app/store';
import { i18next } from '../../src/i18n';
import type { Actor } from '../../src/app/permissions';
import { loginState } from '../render';
import { server } from '../msw/server';
import { http, HttpResponse } from 'msw';

let shown = '';
function LocationProbe() {
  const { pathname } = useLocation();
  useEffect(() => {
    shown = pathname;
  }, [pathname]);
  return null;
}

/** The real routes (AppRouterContent: guard, lazy pages, layout) in a memory router, with a real store. */
async function renderAt(path: string, actor: Actor | null, lang: 'ja' | 'en' = 'ja') {
  const store = setupStore(actor ? loginState(actor) : {});
  await i18next.changeLanguage(lang);
  // Awaited: a page that suspends while its module loads is rendered again only within an awaited act.
  await act(async () => {
    render(
      <AppProviders store={store}>
        <MemoryRouter initialEntries={[path]}>
          <LocationProbe />
          <AppRouterContent />
        </MemoryRouter>
      </AppProviders>,
    );
  });
  // A page module loads on first use: on a busy machine that can take longer than findBy's default second.
  await screen.findByRole('heading', { level: 1 }, { timeout: 10_000 });
  return {
    store,
    router: {
      location: () => shown,
      navigate: (to: string) =>
        act(async () => {
          navigateTo(to);
        }),
    },
  };
}

const t = (k: string) => i18next.t(k as never);

// jsdom has no scrolling, and a real window.close() would tear the test window down (the /close page calls it
// from an effect that may run after a test ends), so both stay stubbed for the whole file.
beforeAll(() => {
  vi.spyOn(window, 'scrollTo').mockImplementation(() => undefined);
  vi.spyOn(window, 'close').mockImplementation(() => undefined);
});

describe('routing: the real route table', () => {
  it.each([
    ['/env-setting', 'PRE00002'],
    ['/examining', 'PRE00004'],
    ['/exam-end', 'PRE00005'],
  ])('a tester may open %s', async (path, bodyId) => {
    // The tester pages load data; here the server is unavailable, which they show as an error state.
    server.use(
      http.all('*/api/v1/*', () =>
        HttpResponse.json({ status: 503, message: 'unavailable', result: null }, { status: 503 }),
      ),
    );
    await renderAt(path, 1);
    await waitFor(() => expect(document.body.id).toBe(bodyId));
    expect(screen.queryByText(t('layout:errorPage.forbidden'))).not.toBeInTheDocument();
  });

  it.each([
    [2, '/monitoring', 'titles.monitoring'],
    [2, '/examinees/12', 'titles.examineeDetail'],
    [3, '/examinees', 'titles.examinees'],
    [4, '/management', 'titles.management'],
    [5, '/logins', 'titles.logins'],
    [5, '/checkers/monitoring', 'titles.checkersMonitoring'],
  ] as const)('actor %i may open %s', async (actor, path, key) => {
    await renderAt(path, actor);
    expect(screen.getByRole('heading', { level: 1 })).toHaveTextContent(t(`pages:${key}`));
  });

  it.each([
    [1, '/monitoring'],
    [1, '/management'],
    [2, '/examinees'],
    [2, '/env-setting'],
    [3, '/management'],
    [3, '/monitoring'],
    [4, '/monitoring'],
    [4, '/examinees/3/login'],
    [5, '/env-setting'],
  ] as const)('actor %i gets the 403 page on %s', async (actor, path) => {
    await renderAt(path, actor);
    expect(screen.getByRole('heading', { level: 1 })).toHaveTextContent(t('layout:errorPage.forbiddenTitle'));
    expect(screen.getByText(t('layout:errorPage.forbidden'))).toBeInTheDocument();
    // The error page does not carry the forbidden page's body id.
    expect(document.body.id).toBe('');
  });

  it.each(['/monitoring', '/env-setting', '/management', '/examinees/3'])(
    'without login %s goes to /login',
    async (path) => {
      const { router } = await renderAt(path, null);
      expect(router.location()).toBe('/login');
      // The login page sets its body id from an effect of its own lazy chunk, which may commit after the heading.
      await waitFor(() => expect(document.body.id).toBe('PRE00001'));
    },
  );

  it.each(['/terms', '/alerting/popup-block', '/close'])(
    'without login the open page %s is allowed',
    async (path) => {
      server.use(
        okGet('get_terms_of_service', {
          template_id: 0,
          title: 't',
          template_body: '<p>x</p>',
          template_footer_url: '',
          updated_at: '',
        }),
      );
      const { router } = await renderAt(path, null);
      expect(router.location()).toBe(path);
    },
  );

  it('an unknown path shows the 404 text, in English exactly "This page could not be found"', async () => {
    await renderAt('/no/such/page', 3, 'en');
    expect(screen.getByText('This page could not be found')).toBeInTheDocument();
  });

  it('an unknown path shows the Japanese 404 text by default', async () => {
    await renderAt('/nothing-here', null);
    expect(screen.getByText(t('layout:errorPage.notFound'))).toBeInTheDocument();
  });

  it('/examinees/abc fails the validity check: 404', async () => {
    await renderAt('/examinees/abc', 3, 'en');
    expect(screen.getByText('This page could not be found')).toBeInTheDocument();
  });

  it('tolerates a trailing slash', async () => {
    await renderAt('/examinees/', 3);
    expect(screen.getByRole('heading', { level: 1 })).toHaveTextContent(t('pages:titles.examinees'));
  });

  it('"/" sends a logged-in actor to the first page', async () => {
    const a = await renderAt('/', 4);
    expect(a.router.location()).toBe('/management');
  });

  it('"/" sends a visitor who is not logged in to /login', async () => {
    const a = await renderAt('/', null);
    expect(a.router.location()).toBe('/login');
  });

  it('sets the body id of the page and changes it on navigation', async () => {
    const { router } = await renderAt('/management', 4);
    expect(document.body.id).toBe('PRE00007');
    await router.navigate('/examinees/5');
    await screen.findByText(t('pages:titles.examineeDetail'));
    expect(document.body.id).toBe('PRE00007');
    await router.navigate('/login');
    await waitFor(() => expect(document.body.id).toBe('PRE00001'));
    await router.navigate('/nowhere');
    await screen.findByText(t('layout:errorPage.notFound'));
    expect(document.body.id).toBe('');
  });

  it('scrolls to top on a new page', async () => {
    const { router } = await renderAt('/management', 4);
    vi.mocked(window.scrollTo).mockClear();
    await router.navigate('/logins');
    await screen.findByText(t('pages:titles.logins'), { selector: 'h1 *' });
    expect(window.scrollTo).toHaveBeenCalledWith(0, 0);
  });
});

function okGet(endpoint: string, result: unknown) {
  return http.get(`*/api/v1/${endpoint}.php`, () =>
    HttpResponse.json({ status: 200, message: 'OK', result }),
  );
}
