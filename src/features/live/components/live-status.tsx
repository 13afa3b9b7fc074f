import { useTranslation } from 'react-i18next';
import { useAppSelector } from '../../../app/hooks';
import { selectTester } from '@/features/tester/tester-slice';
import { selectLive } from '../live-slice';

/** The transmission and matching state, announced politely (aria-live) when it changes. */
export function LiveStatus() {
  const { t } = useTranslation('live');
  const status = useAppSelector((s) => selectLive(s).status);
  const matching = useAppSelector((s) => selectLive(s).matchingStatus);
  const viewers = useAppSelector((s) => selectLive(s).viewerIds.length);
  // While the network is down (the disconnect flag) nobody can be said to be watching.
  const offline = useAppSelector((s) => selectTester(s).disconnected);
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
