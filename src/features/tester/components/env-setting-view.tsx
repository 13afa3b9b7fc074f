import { useEffect } from 'react';
import Button from 'react-bootstrap/Button';
import { useTranslation } from 'react-i18next';
import { useAppDispatch, useAppSelector } from '../../../app/hooks';
import { PageTitle } from '../../../components/layout/page-title';
import { LiveStatus } from '../../live/components/live-status';
import {
  DEVICE,
  envTermAgreementChanged,
  selectCanProceedEnv,
  type DeviceState,
  selectTester,
} from '../tester-slice';
import { checkDevices, checkPopup, envNextPressed, envSettingEntered } from '../env-setting-thunks';
import { AudioLevelMeter } from './audio-level-meter';
import { CameraPreview } from './camera-preview';
import { DisconnectBanner } from './disconnect-banner';
import { StepBar } from './step-bar';
import { TermsAgreement } from './terms-agreement';
import { TOUCH } from '../../../components/ui/touch';

function DeviceBadge({ state, testId }: { state: DeviceState; testId: string }) {
  const { t } = useTranslation('tester');
  const cls =
    state === DEVICE.allowed
      ? 'text-bg-success'
      : state === DEVICE.denied
        ? 'text-bg-danger'
        : 'text-bg-secondary';
  return (
    <span className={`badge ${cls}`} data-testid={testId} data-state={state}>
      {t(`envSetting.device.${state}`)}
    </span>
  );
}

/** /env-setting (PRE00002): camera, microphone, popup check, terms agreement and Next (spec §2). */
export function EnvSettingView() {
  const { t } = useTranslation('tester');
  const dispatch = useAppDispatch();
  const tester = useAppSelector(selectTester);
  const canProceed = useAppSelector(selectCanProceedEnv);
  useEffect(() => {
    void dispatch(envSettingEntered());
  }, [dispatch]);

  return (
    <section aria-labelledby="page-title">
      <PageTitle>
        <span id="page-title">{t('envSetting.title')}</span>
      </PageTitle>
      <StepBar />
      <div className="alert alert-warning" role="note" data-testid="reload-notice">
        {t('envSetting.reloadNotice')}
      </div>
      <DisconnectBanner />
      <LiveStatus />

      {tester.envResume === 'checking' ? (
        <p role="status" className="text-body-secondary" data-testid="env-resume-checking">
          <span className="spinner-border spinner-border-sm me-2" aria-hidden="true" />
          {t('envSetting.resumeChecking')}
        </p>
      ) : (
        <>
          <div className="row g-4">
            <section className="col-md-6" aria-labelledby="camera-heading">
              <h2 id="camera-heading" className="h5">
                {t('envSetting.camera.heading')} <DeviceBadge state={tester.camera} testId="camera-state" />
              </h2>
              <CameraPreview label={t('envSetting.camera.previewLabel')} />
              {tester.cameraError && (
                <p className="text-danger mt-2" role="alert">
                  {t(`envSetting.deviceError.${tester.cameraError as 'denied'}`)}
                </p>
              )}
            </section>
            <section className="col-md-6" aria-labelledby="mic-heading">
              <h2 id="mic-heading" className="h5">
                {t('envSetting.microphone.heading')}{' '}
                <DeviceBadge state={tester.microphone} testId="microphone-state" />
              </h2>
              <p className="small">{t('envSetting.microphone.hint')}</p>
              <AudioLevelMeter label={t('envSetting.microphone.levelLabel')} />
              {tester.microphoneError && (
                <p className="text-danger mt-2" role="alert">
                  {t(`envSetting.deviceError.${tester.microphoneError as 'denied'}`)}
                </p>
              )}
              {(tester.camera === DEVICE.denied || tester.microphone === DEVICE.denied) && (
                <Button
                  variant="outline-primary"
                  className="mt-2"
                  style={TOUCH}
                  onClick={() => void dispatch(checkDevices())}
                >
                  {t('envSetting.camera.retry')}
                </Button>
              )}
            </section>
          </div>

          <section className="mt-4" aria-labelledby="popup-heading">
            <h2 id="popup-heading" className="h5">
              {t('envSetting.popup.heading')}
            </h2>
            <p
              data-testid="popup-state"
              data-state={tester.popup}
              className={tester.popup === 'blocked' ? 'text-danger' : ''}
            >
              {t(`envSetting.popup.${tester.popup}`)}
            </p>
            {tester.popup === 'blocked' && (
              <Button variant="outline-primary" style={TOUCH} onClick={() => void dispatch(checkPopup())}>
                {t('envSetting.popup.retry')}
              </Button>
            )}
          </section>

          <section className="mt-4" aria-labelledby="terms-heading">
            <h2 id="terms-heading" className="h5">
              {t('envSetting.terms.heading')}
            </h2>
            <TermsAgreement
              term={tester.envTerm}
              testId="env-terms"
              checkboxId="env-terms-agree"
              texts={{
                region: t('envSetting.terms.regionLabel'),
                loadFailed: t('envSetting.terms.loadFailed'),
                fallback: t('envSetting.terms.default'),
                agree: t('envSetting.terms.agree'),
              }}
              agreed={tester.envTermAgreed}
              onAgreedChange={(agreed) => dispatch(envTermAgreementChanged(agreed))}
              fixedHeight
              busyWhileLoading
            />
          </section>

          <div className="mt-4">
            <div aria-live="assertive" role="alert">
              {tester.envNext === 'networkError' && (
                <p className="text-danger" data-testid="env-network-error">
                  {t('envSetting.networkError')}
                </p>
              )}
              {tester.envNext === 'failed' && <p className="text-danger">{t('envSetting.failed')}</p>}
            </div>
            {!canProceed && tester.envNext !== 'sending' && (
              <p className="small text-body-secondary" id="next-hint">
                {t('envSetting.nextHint')}
              </p>
            )}
            <Button
              variant="primary"
              size="lg"
              style={TOUCH}
              disabled={!canProceed}
              aria-describedby={!canProceed ? 'next-hint' : undefined}
              onClick={() => void dispatch(envNextPressed())}
              data-testid="env-next"
            >
              {tester.envNext === 'sending' ? t('envSetting.nextBusy') : t('envSetting.next')}
            </Button>
          </div>
        </>
      )}
    </section>
  );
}
