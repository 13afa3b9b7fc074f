import { useLayoutEffect, useRef, type ReactNode } from 'react';
import { Provider } from 'react-redux';
import { I18nextProvider } from 'react-i18next';
import { BrowserRouter, useNavigate } from 'react-router-dom';
import { i18next } from '../i18n';
import type { AppStore } from './store';
import { AppRoutes, preloadRoute } from '../routes/router';
import { useAppStore } from './hooks';
import { RouteErrorBoundary } from '../routes/errors/route-error-page';
import { setNavigator } from './navigation';

/**
 * Lets code outside React (listeners, start-up) navigate through the router once it is mounted. The target
 * page loads first and the address changes when it is ready, so what a listener reads of the location and
 * what the page shows stay in step; a newer navigation supersedes one still loading.
 */
function NavigationBridge() {
  const navigate = useNavigate();
  const store = useAppStore();
  const current = useRef(navigate);
  const latest = useRef(0);
  useLayoutEffect(() => {
    current.current = navigate;
  }, [navigate]);
  useLayoutEffect(() => {
    setNavigator((to, opts) => {
      const mine = ++latest.current;
      void preloadRoute(store, new URL(to, window.location.href).pathname).then(() => {
        if (mine === latest.current) void current.current(to, opts);
      });
    });
    return () => setNavigator(null);
  }, [store]);
  return null;
}

/** The store and the texts every part of the app reads (tests put their own router inside). */
export function AppProviders({ store, children }: { store: AppStore; children: ReactNode }) {
  return (
    <Provider store={store}>
      <I18nextProvider i18n={i18next}>{children}</I18nextProvider>
    </Provider>
  );
}

/** Every route, inside a router; an error in the layout itself shows the error page alone. */
export function AppRouterContent() {
  return (
    <>
      <NavigationBridge />
      <RouteErrorBoundary>
        <AppRoutes />
      </RouteErrorBoundary>
    </>
  );
}

/** The app: providers, the browser's history, the routes. */
export function App({ store }: { store: AppStore }) {
  return (
    <AppProviders store={store}>
      <BrowserRouter>
        <AppRouterContent />
      </BrowserRouter>
    </AppProviders>
  );
}
