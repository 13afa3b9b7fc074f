import type { ListenerDispatch } from '../../app/listener';
import type { AppDispatch } from '../../app/store';
import { confirm, showAlert, type ConfirmArgs, type ShowAlertArgs } from '../layout/layout-thunks';

/** The layout's alert thunk, run from a listener or a tester thunk (their dispatch is the listener type). */
export function alertModal(dispatch: ListenerDispatch, args: ShowAlertArgs): Promise<void> {
  return showAlert(args)(dispatch as unknown as AppDispatch);
}

/** The layout's confirm thunk, run from a listener or a tester thunk. */
export function confirmModal(dispatch: ListenerDispatch, args: ConfirmArgs): Promise<boolean> {
  return confirm(args)(dispatch as unknown as AppDispatch);
}
