import { useTranslation } from 'react-i18next';
import { useAppSelector } from '../../../app/hooks';
import { selectServerReach } from '../monitoring-slice';

/**
 * Says so while the console's polls cannot reach the server: the live video goes on (it is peer to peer), the
 * console retries by itself, and meanwhile no new chat arrives and no action can be sent. It goes when a poll
 * is answered again; a screen reader then hears that the connection is back.
 */
export function ServerStatus() {
  const { t } = useTranslation('monitoring');
  const { status } = useAppSelector(selectServerReach);
  return (
    // Always rendered: a live region must exist before what it announces.
    <div role="status" aria-live="polite" data-testid="server-status" data-status={status}>
      {status === 'unreachable' && (
        <div className="alert alert-warning py-1 px-2 mb-1 small" data-testid="server-unreachable">
          {/* Apart by a margin, not a space: Japanese sentences follow each other without one. */}
          <strong className="me-1">{t('server.unreachableTitle')}</strong>
          <span>{t('server.unreachable')}</span>
        </div>
      )}
      {status === 'restored' && <span className="visually-hidden">{t('server.restored')}</span>}
    </div>
  );
}
