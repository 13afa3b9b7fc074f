import { useTranslation } from 'react-i18next';
import { useAppDispatch, useAppSelector } from '../../../app/hooks';
import { AlertModal } from '../../../components/modals/alert-modal';
import { ConfirmModal } from '../../../components/modals/confirm-modal';
import { MODAL_IDS } from '../../../components/modals/modal-ids';
import { useText } from '../../../components/ui/use-text';
import { selectTopModal } from '../layout-slice';
import { modalAnswered } from '../layout-thunks';

/** Shows the first queued alert or confirm modal (layout.modals[0]); the next one shows when it closes. */
export function ModalHost() {
  const modal = useAppSelector(selectTopModal);
  const dispatch = useAppDispatch();
  const { t } = useTranslation(['layout', 'common']);
  const text = useText();
  if (!modal) return null;

  const message = modal.messageKey ? text(modal.messageKey, modal.messageValues) : (modal.messageText ?? '');
  const answer = (confirmed: boolean) => dispatch(modalAnswered({ id: modal.id, confirmed }));

  if (modal.kind === 'confirm') {
    return (
      <ConfirmModal
        key={modal.id}
        id={MODAL_IDS.globalConfirm}
        show
        title={modal.titleKey ? text(modal.titleKey) : t('modal.confirm')}
        message={message}
        okLabel={t('common:ok')}
        cancelLabel={t('common:cancel')}
        onAnswer={answer}
      />
    );
  }
  return (
    <AlertModal
      key={modal.id}
      id={MODAL_IDS.globalAlert}
      show
      type={modal.alertType}
      title={modal.titleKey ? text(modal.titleKey) : t(`modal.${modal.alertType}`)}
      message={message}
      closeLabel={t('common:close')}
      onClose={() => answer(true)}
    />
  );
}
