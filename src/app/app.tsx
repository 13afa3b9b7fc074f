import { Provider } from 'react-redux';
import { I18nextProvider } from 'react-i18next';
import { RouterProvider } from 'react-router-dom';
import { i18next } from '../i18n';
import type { AppStore } from './store';
import type { createAppRouter } from '../routes/router';

/** Provider + I18nextProvider + RouterProvider. */
export function App({ store, router }: { store: AppStore; router: ReturnType<typeof createAppRouter> }) {
  return (
    <Provider store={store}>
      <I18nextProvider i18n={i18next}>
        <RouterProvider router={router} />
      </I18nextProvider>
    </Provider>
  );
}
