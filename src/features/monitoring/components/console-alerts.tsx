import Button from 'react-bootstrap/Button';
import { useTranslation } from 'react-i18next';
import { useAppDispatch, useAppSelector } from '../../../app/hooks';
import { askNotificationPermission } from '../../../platform/desktop-notification';
import { unlockSound } from '../../../platform/attention';
import { alertText } from '../monitoring-listeners';
import { formatDateTime } from '../monitoring-format';
import { alertsCleared, alertSoundToggled, notifyPermissionChanged, selectAlerts } from '../monitoring-slice';

/**
 * How the console alerts the checker: the sound switch (kept across reloads), the desktop notifications
 * (the browser asks once, from this button's click), and the keyboard help.
 */
export function AlertControls({ onHelp }: { onHelp(): void }) {
  const { t } = useTranslation('monitoring');
  const dispatch = useAppDispatch();
  const alerts = useAppSelector(selectAlerts);
  const ask = async () => {
    unlockSound();
    const permission = await askNotificationPermission();
    dispatch(notifyPermissionChanged({ permission, asked: true }));
  };
  return (
    <div className="d-flex flex-wrap align-items-center gap-2">
      <Button
        size="sm"
        variant={alerts.soundOn ? 'secondary' : 'outline-secondary'}
        aria-pressed={alerts.soundOn}
        onClick={() => {
          unlockSound();
          dispatch(alertSoundToggled());
        }}
        data-testid="alert-sound"
      >
        {t('alerts.sound')}: {alerts.soundOn ? t('alerts.soundOn') : t('alerts.soundOff')}
      </Button>
      {alerts.permission === 'default' && !alerts.asked && (
        <Button size="sm" variant="outline-primary" onClick={() => void ask()} data-testid="alert-notify">
          {t('alerts.notifyEnable')}
        </Button>
      )}
      {alerts.permission !== 'unsupported' && (alerts.permission !== 'default' || alerts.asked) && (
        <span className="small text-body-secondary" data-testid="alert-notify-state">
          {alerts.permission === 'granted'
            ? t('alerts.notifyOn')
            : alerts.permission === 'denied'
              ? t('alerts.notifyDenied')
              : t('alerts.notifyDefault')}
        </span>
      )}
      <Button size="sm" variant="outline-secondary" onClick={onHelp} aria-keyshortcuts="?">
        {t('help.button')}
      </Button>
    </div>
  );
}

/**
 * The latest alerts, newest first (each says which pane and examinee), announced politely as they come; the
 * list can be cleared. The same alerts sound, notify and count in the title (monitoring-listeners).
 */
export function AlertList() {
  const { t } = useTranslation('monitoring');
  const dispatch = useAppDispatch();
  const { items } = useAppSelector(selectAlerts);
  const shown = items.slice(0, 3);
  return (
    <section aria-label={t('alerts.label')} className="console-alerts d-flex align-items-start gap-2">
      <ul className="list-unstyled mb-0 small flex-grow-1" aria-live="polite" data-testid="console-alerts">
        {shown.map((a) => {
          const { title, body } = alertText(a);
          return (
            <li key={a.id} data-kind={a.kind} data-tester-id={a.testerId} className="text-truncate">
              {t('alerts.line', { time: formatDateTime(a.at).slice(11), title, body })}
            </li>
          );
        })}
      </ul>
      {items.length > 0 && (
        <Button size="sm" variant="outline-secondary" onClick={() => dispatch(alertsCleared())}>
          {t('alerts.clear')}
        </Button>
      )}
    </section>
  );
}
