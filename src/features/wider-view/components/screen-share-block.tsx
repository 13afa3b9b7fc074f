import Button from 'react-bootstrap/Button';
import Modal from 'react-bootstrap/Modal';
import { useTranslation } from 'react-i18next';
import { useAppDispatch, useAppSelector } from '../../../app/hooks';
import { MODAL_IDS } from '../../../components/modals/modal-ids';
import { useText } from '../../../components/ui/use-text';
import { selectTester } from '../../tester/tester-slice';
import { selectScreenShareHeld, selectWiderView } from '../wider-view-slice';
import { screenShareRequested } from '../wider-view-thunks';

/**
 * The exam is held while the screen is not shared (README "The wider view"): after the share ended during the
 * exam, this dialog stays until the entire screen is shared again (the exam window was closed and the exam
 * interrupted; "resume the exam" then takes the examinee back). It cannot be dismissed.
 */
export function ScreenShareBlock() {
  const { t } = useTranslation('widerView');
  const text = useText();
  const dispatch = useAppDispatch();
  const w = useAppSelector(selectWiderView);
  const phase = useAppSelector((s) => selectTester(s).examPhase);
  const show = useAppSelector((s) => selectScreenShareHeld(s, phase));
  const titleId = `${MODAL_IDS.screenShareBlock}-title`;
  return (
    <Modal
      id={MODAL_IDS.screenShareBlock}
      show={show}
      backdrop="static"
      keyboard={false}
      centered
      aria-labelledby={titleId}
      data-testid="screen-share-block"
    >
      <Modal.Header>
        <Modal.Title id={titleId} as="h2" className="h5">
          {t('screen.block.title')}
        </Modal.Title>
      </Modal.Header>
      <Modal.Body>
        <p>{t('screen.block.body')}</p>
        <div role="alert">
          {w.screen.errorKey && <p className="text-danger">{text(w.screen.errorKey)}</p>}
        </div>
      </Modal.Body>
      <Modal.Footer>
        <Button
          onClick={() => void dispatch(screenShareRequested())}
          disabled={w.screen.status === 'asking'}
          data-testid="screen-share-again"
        >
          {w.screen.status === 'asking' ? t('screen.asking') : t('screen.shareAgain')}
        </Button>
      </Modal.Footer>
    </Modal>
  );
}
