import { useEffect, type ComponentType, type ReactNode } from 'react';
import Button from 'react-bootstrap/Button';
import { useTranslation } from 'react-i18next';
import { useAppDispatch, useAppSelector } from '../../../app/hooks';
import { PageTitle } from '../../../components/layout/page-title';
import { useText } from '../../../components/ui/use-text';
import { CHECKLIST_SIZE, checklistItemToggled, selectMonitorCheck } from '../identification-slice';
import { authenticationRequested, identificationEntered } from '../identification-thunks';
import { MESSAGE_TYPE } from '@contract/constants/messages';
import { selectTester } from '@/features/tester/tester-slice';
import { selectLive } from '@/features/live/live-slice';

const TOUCH = { minHeight: 44, minWidth: 44 };
const ITEMS = Array.from({ length: CHECKLIST_SIZE }, (_, i) => i);

/**
 * What the route composes into the view (routes/tester): the tester pages' chrome (step bar, notices, the live
 * channel's status) under the title, and the tester feature's camera preview and chat with the checker. The identification feature
 * does not reach into the tester or live features for them.
 */
export interface MonitorIdentificationSlots {
  chrome: ReactNode;
  Camera: ComponentType<{ label: string }>;
  Chat: ComponentType<{ messageType: 1 | 3; disabled?: boolean }>;
}

/** /identification (PRE00003): identity check by a monitor (spec §2, §4). */
export function MonitorIdentificationView({ chrome, Camera, Chat }: MonitorIdentificationSlots) {
  const { t } = useTranslation('identification');
  const text = useText();
  const dispatch = useAppDispatch();
  const check = useAppSelector(selectMonitorCheck);
  const matched = useAppSelector(
    (s) => selectLive(s).matchingStatus === 2 || selectLive(s).checkerId !== null,
  );
  const removed = useAppSelector((s) => selectTester(s).exit !== 'none');
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
      {chrome}
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
          <Camera label={t('monitor.previewLabel')} />
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
            <Chat messageType={MESSAGE_TYPE.identificationByTester} disabled={removed} />
          </div>
        </div>
      </div>
    </section>
  );
}
