import { useEffect, useRef, useState } from 'react';
import Button from 'react-bootstrap/Button';
import { useTranslation } from 'react-i18next';
import { useAppDispatch, useAppSelector } from '../../../app/hooks';
import { PageTitle } from '../../../components/layout/page-title';
import { deferredPart } from '../../../components/ui/deferred-part';
import { TOUCH } from '../../../components/ui/touch';
import { PHONE_STREAM_ID } from '../../../media/devices';
import { getStream, onStreamChange } from '../../../media/stream-registry';
import {
  phoneCameraChosen,
  phonePageOpened,
  phonePairingRetried,
  phoneStopRequested,
  selectPhoneCamera,
} from '../phone-camera-slice';

// The stop question (react-bootstrap's Modal) is closed when the page first shows: it loads right after.
const ConfirmModal = deferredPart(() =>
  import('../../../components/modals/confirm-modal').then((m) => m.ConfirmModal),
).Part;

/** The phone's own camera, as it publishes it (muted; the front camera mirrored, as people expect). */
function PhonePreview({ label, mirrored }: { label: string; mirrored: boolean }) {
  const ref = useRef<HTMLVideoElement>(null);
  const [version, setVersion] = useState(0);
  useEffect(() => onStreamChange((id) => id === PHONE_STREAM_ID && setVersion((v) => v + 1)), []);
  useEffect(() => {
    const video = ref.current;
    if (!video) return;
    video.srcObject = getStream(PHONE_STREAM_ID);
    if (video.srcObject) void video.play?.()?.catch(() => undefined);
    return () => {
      video.srcObject = null;
    };
  }, [version]);
  return (
    <video
      ref={ref}
      muted
      playsInline
      autoPlay
      aria-label={label}
      data-testid="phone-preview"
      className="w-100 bg-dark rounded"
      style={{ aspectRatio: '4 / 3', objectFit: 'contain', transform: mirrored ? 'scaleX(-1)' : undefined }}
    />
  );
}

/** The two camera buttons (first choice, and again after the camera failed). */
function CameraChoice() {
  const { t } = useTranslation('phone');
  const dispatch = useAppDispatch();
  return (
    <div className="d-grid gap-2">
      <Button
        size="lg"
        style={TOUCH}
        onClick={() => dispatch(phoneCameraChosen('environment'))}
        data-testid="phone-rear"
      >
        {t('page.rear')}
      </Button>
      <Button
        size="lg"
        variant="outline-primary"
        style={TOUCH}
        onClick={() => dispatch(phoneCameraChosen('user'))}
        data-testid="phone-front"
      >
        {t('page.front')}
      </Button>
    </div>
  );
}

/**
 * `/phone`: the examinee's phone as a second camera, laid out for a phone's screen. It pairs with the code from
 * the QR code, asks for the rear or the front camera, then shows its own camera and its state (connected,
 * reconnecting, watched) until the exam ends.
 */
export function PhoneCameraView() {
  const { t } = useTranslation(['phone', 'common']);
  const dispatch = useAppDispatch();
  const p = useAppSelector(selectPhoneCamera);
  const [confirmStop, setConfirmStop] = useState(false);
  useEffect(() => {
    dispatch(phonePageOpened());
  }, [dispatch]);

  const running = p.step === 'running';
  return (
    <section
      aria-labelledby="page-title"
      className="mx-auto"
      style={{ maxWidth: 560 }}
      data-testid="phone-page"
      data-step={p.step}
    >
      <PageTitle>
        <span id="page-title">{t('page.title')}</span>
      </PageTitle>

      {p.examUserName && p.step !== 'invalid' && (
        <div className="mb-3">
          <p className="mb-1" data-testid="phone-paired-with">
            {t('page.pairedWith', { name: p.examUserName, loginId: p.loginId })}
          </p>
          {p.testName && (
            <p className="small text-body-secondary mb-0">{t('page.testName', { name: p.testName })}</p>
          )}
        </div>
      )}

      <div role="status" aria-live="polite">
        {p.step === 'pairing' && <p>{t('page.pairing')}</p>}
        {p.step === 'starting' && <p>{t('page.starting')}</p>}
        {running && (
          <p
            className="fw-bold"
            data-testid="phone-connection"
            data-connection={p.connection}
            data-watched={p.watched}
          >
            {t('page.status.label')}: {t(`page.status.${p.connection}`)}
            {p.connection === 'connected' && p.watched && <> / {t('page.status.watched')}</>}
          </p>
        )}
        {p.recording !== 'off' && (p.step === 'running' || p.step === 'ended') && (
          <p className="small" data-testid="phone-recording" data-state={p.recording}>
            {t('page.recording.label')}: {t(`page.recording.${p.recording}`)}
          </p>
        )}
        {p.step === 'ended' && p.endReason && (
          <p className="alert alert-info" data-testid="phone-ended" data-reason={p.endReason}>
            {t(`page.ended.${p.endReason}`)}
          </p>
        )}
        {p.step === 'replaced' && (
          <p className="alert alert-warning" data-testid="phone-replaced">
            {t('page.replaced')}
          </p>
        )}
      </div>

      <div role="alert">
        {p.step === 'invalid' && (
          <p
            className="alert alert-danger"
            data-testid="phone-invalid"
            data-reason={p.pairingError ?? 'invalid'}
          >
            {t(p.pairingError === 'network' ? 'page.network' : 'page.invalid')}
          </p>
        )}
        {p.step === 'cameraFailed' && p.cameraError && (
          <p className="alert alert-danger" data-testid="phone-camera-error" data-code={p.cameraError}>
            {t(`page.cameraError.${p.cameraError}`)}
          </p>
        )}
      </div>

      {p.step === 'invalid' && p.pairingError === 'network' && (
        <Button size="lg" style={TOUCH} onClick={() => dispatch(phonePairingRetried())}>
          {t('page.retry')}
        </Button>
      )}

      {(p.step === 'choose' || p.step === 'cameraFailed') && (
        <section aria-labelledby="phone-choose-heading">
          <h2 id="phone-choose-heading" className="h5">
            {t('page.chooseHeading')}
          </h2>
          <p className="small">{t('page.chooseHint')}</p>
          <CameraChoice />
        </section>
      )}

      {running && (
        <>
          <PhonePreview label={t('page.preview')} mirrored={p.camera === 'user'} />
          <p className="small mt-2">{t('page.keepOpen')}</p>
          <div className="d-grid gap-2">
            <Button
              size="lg"
              variant="outline-primary"
              style={TOUCH}
              onClick={() => dispatch(phoneCameraChosen(p.camera === 'user' ? 'environment' : 'user'))}
              data-testid="phone-switch"
            >
              {t(p.camera === 'user' ? 'page.switchToRear' : 'page.switchToFront')}
            </Button>
            <Button
              size="lg"
              variant="outline-danger"
              style={TOUCH}
              onClick={() => setConfirmStop(true)}
              data-testid="phone-stop"
            >
              {t('page.stop')}
            </Button>
          </div>
          <ConfirmModal
            needed={confirmStop}
            id="phone-stop-confirm"
            show={confirmStop}
            title={t('page.stop')}
            message={t('page.stopConfirm')}
            okLabel={t('common:ok')}
            cancelLabel={t('common:cancel')}
            onAnswer={(yes) => {
              setConfirmStop(false);
              if (yes) dispatch(phoneStopRequested());
            }}
          />
        </>
      )}
    </section>
  );
}
