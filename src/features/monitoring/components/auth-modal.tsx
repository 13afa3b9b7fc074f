import { useRef, useState } from 'react';
import Button from 'react-bootstrap/Button';
import Modal from 'react-bootstrap/Modal';
import { useTranslation } from 'react-i18next';
import { useAppDispatch, useAppSelector } from '../../../app/hooks';
import type { RootState } from '../../../app/store';
import { MODAL_IDS } from '../../../components/modals/modal-ids';
import { authModalClosed, selectAuthIntent, selectAuthTesterId, selectPane } from '../monitoring-slice';
import { identityDecided } from '../monitoring-thunks';
import { ExamineeImages } from './examinee-images';

/**
 * Identity check by the checker (modal id monitor-auth): images, accept or reject. Opened by a shortcut (A or
 * R) it asks to confirm that choice: the question is shown and its button has the focus, so Enter confirms.
 */
export function AuthModal() {
  const { t } = useTranslation('monitoring');
  const dispatch = useAppDispatch();
  const testerId = useAppSelector(selectAuthTesterId);
  const intent = useAppSelector(selectAuthIntent);
  const acceptRef = useRef<HTMLButtonElement>(null);
  const rejectRef = useRef<HTMLButtonElement>(null);
  const pane = useAppSelector((s: RootState) => (testerId === null ? undefined : selectPane(s, testerId)));
  const [busy, setBusy] = useState(false);
  const show = pane !== undefined;
  const titleId = `${MODAL_IDS.monitorAuth}-title`;

  const decide = async (d: 'accepted' | 'rejected') => {
    if (!pane) return;
    setBusy(true);
    await dispatch(identityDecided(pane.testerId, d));
    setBusy(false);
  };

  return (
    <Modal
      id={MODAL_IDS.monitorAuth}
      show={show}
      onHide={() => dispatch(authModalClosed())}
      centered
      aria-labelledby={titleId}
      onEntered={() => {
        if (intent === 'accept') acceptRef.current?.focus();
        else if (intent === 'reject') rejectRef.current?.focus();
      }}
    >
      <Modal.Header closeButton closeLabel={t('auth.cancel')}>
        <Modal.Title id={titleId} as="h2" className="h5">
          {t('auth.title')}
        </Modal.Title>
      </Modal.Header>
      {pane && (
        <Modal.Body>
          <p className="mb-1 fw-bold">
            {t('paneLabel', { name: pane.name ?? pane.loginId, loginId: pane.loginId })}
          </p>
          <p>{t('auth.intro')}</p>
          {intent && (
            <p className="fw-bold" role="status" data-testid="auth-confirm">
              {t(intent === 'accept' ? 'authConfirm.accept' : 'authConfirm.reject', {
                name: pane.name ?? pane.loginId,
              })}
            </p>
          )}
          <ExamineeImages
            name={pane.name ?? pane.loginId}
            headShot={pane.headShot}
            idCard={pane.idCard}
            size={160}
          />
        </Modal.Body>
      )}
      <Modal.Footer>
        <Button variant="outline-secondary" onClick={() => dispatch(authModalClosed())} disabled={busy}>
          {t('auth.cancel')}
        </Button>
        <Button ref={rejectRef} variant="danger" onClick={() => void decide('rejected')} disabled={busy}>
          {t('auth.reject')}
        </Button>
        <Button ref={acceptRef} variant="success" onClick={() => void decide('accepted')} disabled={busy}>
          {t('auth.accept')}
        </Button>
      </Modal.Footer>
    </Modal>
  );
}
