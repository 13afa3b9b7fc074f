import { useEffect } from 'react';
import Button from 'react-bootstrap/Button';
import { useTranslation } from 'react-i18next';
import { useAppDispatch, useAppSelector } from '../../../app/hooks';
import { PageTitle } from '../../../components/layout/page-title';
import { useText } from '../../../components/ui/use-text';
import { LiveStatus } from '../../live/components/live-status';
import { CameraPreview } from '../../tester/components/camera-preview';
import { ChatPanel } from '../../tester/components/chat-panel';
import { DisconnectBanner } from '../../tester/components/disconnect-banner';
import { ExitNotice } from '../../tester/components/exit-notice';
import { StepBar } from '../../tester/components/step-bar';
import { CHECKLIST_SIZE, checklistItemToggled, selectMonitorCheck } from '../identification-slice';
import { authenticationRequested, identificationEntered } from '../identification-thunks';

const TOUCH = { minHeight: 44, minWidth: 44 };
const ITEMS = Array.from({ length: CHECKLIST_SIZE }, (_, i) => i);

/** /identification (PRE00003): identity check by a monitor (spec §2, §4). */
export function MonitorIdentificationView() {
  const { t } = useTranslation('identification');
  const text = useText();
  const dispatch = useAppDispatch();
  const check = useAppSelector(selectMonitorCheck);
  const matched = useAppSelector((s) => s.live.matchingStatus === 2 || s.live.checkerId !== null);
  const removed = useAppSelector((s) => s.tester.exit !== 'none');
  useEffect(() => {
    void dispatch(identificationEntered());
  }, [dispatch]);
  const allChecked = check.checklist.every(Boolean);
  const canRequest = allChecked && check.status === 'preparing' && !removed;
  return (
    <section aria-labelledby="page-title">
      <PageTitle>
        <span id="page-title">{t('monitor.title')}</span>
      </PageTitle>
      <StepBar />
      <ExitNotice />
      <DisconnectBanner />
      <LiveStatus />
      <p>{t('monitor.intro')}</p>
      <p
        role="status"
        aria-live="polite"
        data-testid="identification-state"
        data-state={check.status}
        className={
          check.status === 'rejected'
            ? 'alert alert-danger'
            : check.status === 'accepted'
              ? 'alert alert-success'
              : 'alert alert-info'
        }
      >
        {t(`monitor.state.${check.status}`)}
      </p>
      {check.errorKey && (
        <p className="text-danger" role="alert">
          {text(check.errorKey)}
        </p>
      )}
      {!matched && check.status === 'preparing' && <p className="small">{t('monitor.waitingForMonitor')}</p>}
      <div className="row g-4">
        <div className="col-md-6">
          <CameraPreview label={t('ai.previewLabel')} />
          <section aria-labelledby="idcard-heading" className="mt-3">
            <h2 id="idcard-heading" className="h5">
              {t('monitor.idCardHeading')}
            </h2>
            <p data-testid="idcard-item">{t('monitor.idCard')}</p>
          </section>
        </div>
        <div className="col-md-6">
          <fieldset className="mb-3" disabled={check.status !== 'preparing'}>
            <legend className="h5">{t('monitor.checklistHeading')}</legend>
            {ITEMS.map((i) => (
              <label
                key={i}
                htmlFor={`check-${i}`}
                style={{ ...TOUCH, display: 'flex', alignItems: 'center', gap: '0.5rem' }}
              >
                <input
                  id={`check-${i}`}
                  type="checkbox"
                  className="form-check-input m-0"
                  style={{ width: 24, height: 24 }}
                  checked={check.checklist[i] ?? false}
                  onChange={() => dispatch(checklistItemToggled(i))}
                />
                {t(`monitor.checklist.${(i + 1) as 1}`)}
              </label>
            ))}
          </fieldset>
          <Button
            size="lg"
            style={TOUCH}
            disabled={!canRequest}
            onClick={() => void dispatch(authenticationRequested())}
            data-testid="request-check"
          >
            {check.status === 'sending' ? t('monitor.requestBusy') : t('monitor.request')}
          </Button>
          <div className="mt-3">
            <ChatPanel messageType={1} disabled={removed} />
          </div>
        </div>
      </div>
    </section>
  );
}
