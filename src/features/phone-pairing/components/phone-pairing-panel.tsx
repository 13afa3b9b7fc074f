import { useEffect } from 'react';
import Button from 'react-bootstrap/Button';
import { useTranslation } from 'react-i18next';
import { useAppDispatch, useAppSelector } from '../../../app/hooks';
import { QrCode } from '../../../components/ui/qr-code';
import { TOUCH } from '../../../components/ui/touch';
import { formatDateTime } from '../../../lib/dates';
import { phoneLinkUrl } from '../../../lib/phone-link';
import {
  pairAnotherToggled,
  phonePanelHidden,
  phonePanelShown,
  selectPhonePairing,
  wantsCode,
} from '../phone-pairing-slice';

const STATE_CLASS: Record<string, string> = {
  waiting: 'text-body-secondary',
  connecting: 'text-body',
  live: 'text-success',
  lost: 'text-danger',
};

/**
 * The examinee's phone camera (start-up is_phone_camera): its state, and while no phone publishes (or "connect
 * another phone" was pressed) a QR code of `<this origin>/phone?lang=<page language>#<single-use code>`, renewed
 * before it expires. Nothing is shown for a sitting without the phone camera.
 */
export function PhonePairingPanel() {
  const { t, i18n } = useTranslation('phone');
  const dispatch = useAppDispatch();
  const p = useAppSelector(selectPhonePairing);
  const enabled = p.enabled;
  useEffect(() => {
    if (!enabled) return;
    dispatch(phonePanelShown());
    return () => {
      dispatch(phonePanelHidden());
    };
  }, [enabled, dispatch]);
  if (!enabled || !p.state) return null;

  const showCode = wantsCode(p);
  const paired = p.state === 'connecting' || p.state === 'live';
  const url = p.code ? phoneLinkUrl(window.location.origin, p.code.code, i18n.language) : null;
  return (
    <section
      aria-labelledby="phone-panel-heading"
      className="border rounded p-3 mb-3"
      data-testid="phone-panel"
      data-phone-state={p.state}
    >
      <h2 id="phone-panel-heading" className="h5">
        {t('panel.heading')}
      </h2>
      <p
        role="status"
        aria-live="polite"
        className={`fw-bold ${STATE_CLASS[p.state] ?? ''}`}
        data-testid="phone-state"
      >
        {t('panel.state.label')}:{' '}
        {p.state === 'live' && p.camera
          ? t('panel.stateWithCamera', {
              state: t('panel.state.live'),
              camera: t(`panel.camera.${p.camera}`),
            })
          : t(`panel.state.${p.state}`)}
      </p>
      {showCode && (
        <>
          <p className="small">{t('panel.intro')}</p>
          {url && p.code ? (
            <div className="d-flex flex-wrap gap-3 align-items-start">
              <QrCode text={url} label={t('panel.qrLabel')} testId="phone-qr" />
              <div className="small" style={{ maxWidth: 360 }}>
                <p className="mb-1">{t('panel.linkLabel')}:</p>
                <p className="font-monospace text-break" data-testid="phone-link">
                  {url}
                </p>
                <p className="text-body-secondary">
                  {t('panel.expires', { time: formatDateTime(p.code.expiresAt) })}
                </p>
              </div>
            </div>
          ) : (
            <p role="status" className="small">
              {t(p.codeStatus === 'error' ? 'panel.error' : 'panel.loading')}
            </p>
          )}
        </>
      )}
      {paired && (
        <Button
          variant="outline-secondary"
          style={TOUCH}
          onClick={() => dispatch(pairAnotherToggled(!p.pairAnother))}
          data-testid="phone-pair-another"
        >
          {t(p.pairAnother ? 'panel.cancelAnother' : 'panel.pairAnother')}
        </Button>
      )}
    </section>
  );
}
