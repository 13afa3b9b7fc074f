import { useEffect } from 'react';
import Button from 'react-bootstrap/Button';
import Form from 'react-bootstrap/Form';
import { useTranslation } from 'react-i18next';
import { useAppDispatch, useAppSelector } from '../../../app/hooks';
import { monitoringStarted, monitoringStopped, selectActivation, selectPaneIds } from '../monitoring-slice';
import { activationToggled, historyModalOpened } from '../monitoring-thunks';
import { AuthModal } from './auth-modal';
import { EndedExaminees } from './ended-examinees';
import { HistoryModal } from './history-modal';
import { MarkingModal } from './marking-modal';
import { MonitorPane } from './monitor-pane';

/** spec §9: a monitor pane row shows up to 5 examinees. */
export const MAX_PANES = 5;

/**
 * The checker's console (PRE00006): one pane per matched examinee, the activation toggle, and the auth,
 * marking and history modals. Opening it starts the matching poll; leaving it stops every viewer.
 */
export function MonitoringConsole() {
  const { t } = useTranslation('monitoring');
  const dispatch = useAppDispatch();
  const ids = useAppSelector(selectPaneIds);
  const activation = useAppSelector(selectActivation);

  useEffect(() => {
    dispatch(monitoringStarted());
    return () => {
      dispatch(monitoringStopped());
    };
  }, [dispatch]);

  return (
    <div className="container-fluid py-2">
      <div className="d-flex flex-wrap align-items-center gap-3 mb-2">
        <p className="mb-0" role="status" aria-live="polite" data-testid="pane-count">
          {t('paneCount', { count: ids.length, max: MAX_PANES })}
        </p>
        {activation && (
          <Form.Check
            type="switch"
            id="monitor-activation"
            className="mb-0"
            label={`${t('activation.label')} (${activation.active ? t('activation.on') : t('activation.off')})`}
            checked={activation.active}
            disabled={activation.status === 'saving'}
            onChange={() => void dispatch(activationToggled())}
            style={{ minHeight: 24 }}
          />
        )}
        <Button
          size="sm"
          variant="outline-secondary"
          className="ms-auto"
          onClick={() => void dispatch(historyModalOpened())}
        >
          {t('actions.history')}
        </Button>
      </div>
      <EndedExaminees />
      {ids.length === 0 ? (
        <p className="text-body-secondary" data-testid="monitoring-empty">
          {t('empty')}
        </p>
      ) : (
        <div
          className="row row-cols-1 row-cols-md-2 row-cols-xl-3 row-cols-xxl-5 g-2"
          data-testid="monitor-panes"
        >
          {ids.map((id) => (
            <div className="col" key={id}>
              <MonitorPane testerId={id} />
            </div>
          ))}
        </div>
      )}
      <AuthModal />
      <MarkingModal />
      <HistoryModal />
    </div>
  );
}
