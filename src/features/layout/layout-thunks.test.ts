import { configureStore, createListenerMiddleware } from '@reduxjs/toolkit';
import type { AppStartListening } from '../../app/listener';
import type { AppDispatch } from '../../app/store';
import layout, { modalClosed } from './layout-slice';
import { addLayoutListeners, confirm, modalAnswered, showAlert } from './layout-thunks';

function makeStore() {
  const listener = createListenerMiddleware();
  const store = configureStore({ reducer: { layout }, middleware: (d) => d().prepend(listener.middleware) });
  addLayoutListeners(listener.startListening as unknown as AppStartListening);
  return { store, dispatch: store.dispatch as unknown as AppDispatch };
}

describe('layout thunks', () => {
  it('queues serializable modal requests with the global ids', () => {
    const { store, dispatch } = makeStore();
    void dispatch(showAlert({ type: 'error', messageKey: 'errors:internal' }));
    void dispatch(confirm({ messageKey: 'common:next' }));
    const [a, c] = store.getState().layout.modals;
    expect(a).toMatchObject({ kind: 'alert', alertType: 'error', messageKey: 'errors:internal' });
    expect(a?.id).toMatch(/^global-alert-\d+$/);
    expect(c).toMatchObject({ kind: 'confirm', alertType: 'caution' });
    expect(c?.id).toMatch(/^global-confirm-\d+$/);
    expect(JSON.parse(JSON.stringify(store.getState().layout))).toEqual(store.getState().layout);
  });

  it('settles through modalAnswered', async () => {
    const { store, dispatch } = makeStore();
    const answer = dispatch(confirm({ messageKey: 'common:next' }));
    dispatch(modalAnswered({ id: store.getState().layout.modals[0]!.id, confirmed: true }));
    await expect(answer).resolves.toBe(true);
    expect(store.getState().layout.modals).toEqual([]);
  });

  it('settles through a plain modalClosed when the layout listener is wired', async () => {
    const { store, dispatch } = makeStore();
    const answer = dispatch(confirm({ messageKey: 'common:next' }));
    store.dispatch(modalClosed({ id: store.getState().layout.modals[0]!.id, confirmed: false }));
    await expect(answer).resolves.toBe(false);
  });
});
