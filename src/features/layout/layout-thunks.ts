import type { AppThunk } from '../../app/store';
import type { AppStartListening } from '../../app/listener';
import { MODAL_IDS } from '../../components/modals/modal-ids';
import { modalClosed, modalOpened, type AlertType } from './layout-slice';
import type { TranslationKey } from '../../lib/translation-key';

/**
 * Alert and confirm modals as promises. The store holds only the serializable request (`layout.modals`);
 * the promise's resolver waits here, keyed by the request id, until the modal is answered.
 */
const pending = new Map<string, (confirmed: boolean) => void>();
let seq = 0;

function nextId(kind: 'alert' | 'confirm'): string {
  seq += 1;
  return `${kind === 'alert' ? MODAL_IDS.globalAlert : MODAL_IDS.globalConfirm}-${seq}`;
}

/** Settles the promise of a modal request (once; later calls do nothing). */
function settle(id: string, confirmed: boolean): void {
  const resolve = pending.get(id);
  if (!resolve) return;
  pending.delete(id);
  resolve(confirmed);
}

export type ShowAlertArgs = {
  type: AlertType;
  /** Title i18n key; default: the type's default title (layout:modal.<type>). */
  titleKey?: TranslationKey;
  messageValues?: Record<string, string | number>;
} & (
  { messageKey: TranslationKey; messageText?: undefined } | { messageText: string; messageKey?: undefined }
);

/** Shows an alert (spec §8: success, caution or error); resolves when the user closes it. */
export const showAlert =
  (args: ShowAlertArgs): AppThunk<Promise<void>> =>
  (dispatch) => {
    const id = nextId('alert');
    const done = new Promise<void>((resolve) => pending.set(id, () => resolve()));
    dispatch(
      modalOpened({
        id,
        kind: 'alert',
        alertType: args.type,
        titleKey: args.titleKey,
        messageKey: args.messageKey,
        messageValues: args.messageValues,
        messageText: args.messageText,
      }),
    );
    return done;
  };

export interface ConfirmArgs {
  messageKey: TranslationKey;
  messageValues?: Record<string, string | number>;
  /** Default: layout:modal.confirm. */
  titleKey?: TranslationKey;
  alertType?: AlertType;
}

/** Asks the user; resolves true for OK, false for Cancel. */
export const confirm =
  (args: ConfirmArgs): AppThunk<Promise<boolean>> =>
  (dispatch) => {
    const id = nextId('confirm');
    const answer = new Promise<boolean>((resolve) => pending.set(id, resolve));
    dispatch(
      modalOpened({
        id,
        kind: 'confirm',
        alertType: args.alertType ?? 'caution',
        titleKey: args.titleKey,
        messageKey: args.messageKey,
        messageValues: args.messageValues,
      }),
    );
    return answer;
  };

/** The user answered a modal: it closes and its promise settles. */
export const modalAnswered =
  ({ id, confirmed }: { id: string; confirmed: boolean }): AppThunk<void> =>
  (dispatch) => {
    dispatch(modalClosed({ id, confirmed }));
    settle(id, confirmed);
  };

/**
 * Settles the promise of a modal closed by anything else than the modal host (a page dispatching
 * modalClosed directly). Wired by app/app-listeners.ts.
 */
export function addLayoutListeners(startListening: AppStartListening): void {
  startListening({
    actionCreator: modalClosed,
    effect: (action) => settle(action.payload.id, action.payload.confirmed),
  });
}
