import { useTranslation } from 'react-i18next';
import { useAppSelector } from '../../../app/hooks';

/** The transmission and matching state, announced politely (aria-live) when it changes. */
export function LiveStatus() {
  const { t } = useTranslation('live');
  const status = useAppSelector((s) => s.live.status);
  const matching = useAppSelector((s) => s.live.matchingStatus);
  const viewers = useAppSelector((s) => s.live.viewerIds.length);
  // While the network is down (the disconnect flag) nobody can be said to be watching.
  const offline = useAppSelector((s) => s.tester.disconnected);
  return (
    <p
      role="status"
      aria-live="polite"
      className="small text-body-secondary mb-2"
      data-testid="live-status"
      data-status={status}
    >
      {t('status.label')}: {t(`status.${status}`)}
      {status !== 'stopped' && (
        <>
          {' / '}
          {offline ? t('matching.offline') : t(matching === 2 ? 'matching.connected' : 'matching.waiting')}
          {!offline && viewers > 0 && <> / {t('viewers', { count: viewers })}</>}
        </>
      )}
    </p>
  );
}
