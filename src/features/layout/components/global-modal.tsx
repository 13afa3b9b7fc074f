import { useTranslation } from 'react-i18next';
import { useAppDispatch } from '../../../app/hooks';
import { AlertModal } from '../../../components/modals/alert-modal';
import { ConfirmModal } from '../../../components/modals/confirm-modal';
import { MODAL_IDS } from '../../../components/modals/modal-ids';
import { useText } from '../../../components/ui/use-text';
import type { ModalRequest } from '../layout-slice';
import { modalAnswered } from '../layout-thunks';

/** One queued alert or confirm modal (spec §8), answered through the store. */
export function GlobalModal({ modal }: { modal: ModalRequest }) {
  const dispatch = useAppDispatch();
  const { t } = useTranslation(['layout', 'common']);
  const text = useText();

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
