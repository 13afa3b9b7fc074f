import Modal from 'react-bootstrap/Modal';
import Button from 'react-bootstrap/Button';
import { useTranslation } from 'react-i18next';
import { useDeviceScan } from '../use-device-scan';
import type { DeviceSummary } from '../../../platform/device-scan';

function DeviceList({ heading, devices }: { heading: string; devices: DeviceSummary[] }) {
  const { t } = useTranslation('login');
  return (
    <div className="mb-3">
      <h3 className="h6 mb-1">
        {heading}: {devices.length > 0 ? t('envCheck.count', { count: devices.length }) : t('envCheck.none')}
      </h3>
      {devices.length > 0 && (
        <ul className="mb-0">
          {devices.map((d, i) => (
            <li key={i}>{d.label || t('envCheck.unnamed')}</li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** The environment check of the login page: lists cameras and microphones, and the browser. */
export function EnvCheckModal({ show, onClose }: { show: boolean; onClose: () => void }) {
  const { t } = useTranslation('login');
  return (
    <Modal show={show} onHide={onClose} centered aria-labelledby="env-check-title">
      <Modal.Header>
        <Modal.Title id="env-check-title" as="h2" className="h5">
          {t('envCheck.title')}
        </Modal.Title>
      </Modal.Header>
      {/* The body mounts while the modal shows, so each opening scans afresh. */}
      <EnvCheckBody onClose={onClose} />
    </Modal>
  );
}

function EnvCheckBody({ onClose }: { onClose: () => void }) {
  const { t } = useTranslation(['login', 'common']);
  const { scan, rescan } = useDeviceScan();
  const devices = scan.status === 'done' ? scan.devices : [];
  const cameras = devices.filter((d) => d.kind === 'videoinput');
  const mics = devices.filter((d) => d.kind === 'audioinput');
  const labelsHidden = devices.length > 0 && devices.every((d) => !d.label);

  return (
    <>
      <Modal.Body>
        <div role="status" aria-live="polite">
          {scan.status === 'checking' && <p>{t('envCheck.checking')}</p>}
          {scan.status === 'unsupported' && <p className="text-danger">{t('envCheck.unsupported')}</p>}
          {scan.status === 'failed' && <p className="text-danger">{t('envCheck.failed')}</p>}
        </div>
        {scan.status === 'done' && (
          <>
            <DeviceList heading={t('envCheck.cameras')} devices={cameras} />
            <DeviceList heading={t('envCheck.microphones')} devices={mics} />
            {labelsHidden && <p className="small text-body-secondary">{t('envCheck.labelsHidden')}</p>}
          </>
        )}
        <h3 className="h6 mb-1">{t('envCheck.browser')}</h3>
        <p className="small text-break mb-0">{navigator.userAgent}</p>
      </Modal.Body>
      <Modal.Footer>
        <Button variant="outline-secondary" onClick={rescan}>
          {t('envCheck.recheck')}
        </Button>
        <Button variant="primary" onClick={onClose}>
          {t('common:close')}
        </Button>
      </Modal.Footer>
    </>
  );
}
