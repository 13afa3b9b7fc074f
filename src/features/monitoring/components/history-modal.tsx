import Button from 'react-bootstrap/Button';
import Modal from 'react-bootstrap/Modal';
import Table from 'react-bootstrap/Table';
import { useTranslation } from 'react-i18next';
import { useAppDispatch, useAppSelector } from '../../../app/hooks';
import { MODAL_IDS } from '../../../components/modals/modal-ids';
import { useText } from '../../../components/ui/use-text';
import { formatDateTime } from '../monitoring-format';
import { historyClosed, selectHistory } from '../monitoring-slice';
import { runtimeKey } from '../../../lib/translation-key';

/** The matching-history modal (monitor-history): login ID, name, status, updated-at. */
export function HistoryModal() {
  const { t } = useTranslation('monitoring');
  const text = useText();
  const dispatch = useAppDispatch();
  const history = useAppSelector(selectHistory);
  const titleId = `${MODAL_IDS.monitorHistory}-title`;
  const close = () => dispatch(historyClosed());

  return (
    <Modal
      id={MODAL_IDS.monitorHistory}
      show={history.open}
      onHide={close}
      centered
      size="lg"
      scrollable
      aria-labelledby={titleId}
    >
      <Modal.Header closeButton closeLabel={t('history.close')}>
        <Modal.Title id={titleId} as="h2" className="h5">
          {t('history.title')}
        </Modal.Title>
      </Modal.Header>
      <Modal.Body>
        {history.status === 'loading' && <p role="status">{t('history.loading')}</p>}
        {history.status === 'failed' && (
          <p role="alert" className="text-danger" data-testid="history-error">
            {t('history.failed')}
          </p>
        )}
        {history.status === 'loaded' && history.users.length === 0 && <p>{t('history.empty')}</p>}
        {history.status === 'loaded' && history.users.length > 0 && (
          <Table size="sm" striped responsive data-testid="history-table">
            <thead>
              <tr>
                <th scope="col">{t('history.loginId')}</th>
                <th scope="col">{t('history.name')}</th>
                <th scope="col">{t('history.status')}</th>
                <th scope="col">{t('history.updatedAt')}</th>
              </tr>
            </thead>
            <tbody>
              {history.users.map((u) => (
                <tr key={`${u.examUserId}-${u.testId}`}>
                  <td>{u.loginId}</td>
                  <td>{u.examName}</td>
                  <td>
                    {text(runtimeKey(`monitoring:testerStatus.${u.statusString}`), {
                      defaultValue: u.statusString,
                    })}
                  </td>
                  <td>{formatDateTime(u.updatedAt)}</td>
                </tr>
              ))}
            </tbody>
          </Table>
        )}
      </Modal.Body>
      <Modal.Footer>
        <Button variant="primary" onClick={close}>
          {t('history.close')}
        </Button>
      </Modal.Footer>
    </Modal>
  );
}
