import { memo } from 'react';
import Button from 'react-bootstrap/Button';
import { useTranslation } from 'react-i18next';
import { useAppDispatch, useAppSelector } from '../../../app/hooks';
import type { RootState } from '../../../app/store';
import { authModalOpened, paneMutedChanged, selectPane } from '../monitoring-slice';
import {
  historyModalOpened,
  kickOutRequested,
  markingModalOpened,
  reconnectRequested,
} from '../monitoring-thunks';
import { ConnectionBadge } from './connection-badge';
import { ElapsedTime } from './elapsed-time';
import { ExamineeImages } from './examinee-images';
import { PaneChat } from './pane-chat';
import { PaneVideo } from './pane-video';

const BTN = { minHeight: 32, minWidth: 32 };

/** One matched examinee (issue #4): re-renders only when this pane's own data changes. */
export const MonitorPane = memo(function MonitorPane({ testerId }: { testerId: number }) {
  const { t } = useTranslation('monitoring');
  const dispatch = useAppDispatch();
  const pane = useAppSelector((s: RootState) => selectPane(s, testerId));
  if (!pane) return null;
  const name = pane.name ?? pane.loginId;
  const headingId = `pane-heading-${testerId}`;
  const busy = pane.connection === 'reconnecting';

  return (
    <article
      className="card h-100"
      aria-labelledby={headingId}
      data-testid={`monitor-pane-${testerId}`}
      data-monitor-id={pane.monitorId}
      data-connection={pane.connection}
      data-auth={pane.auth}
    >
      <div className="card-header d-flex flex-wrap align-items-start gap-2">
        <div className="me-auto">
          <h2 id={headingId} className="h6 mb-0" data-testid="pane-name">
            {pane.name ?? t('unknownName')}
          </h2>
          <div className="small">
            <span className="visually-hidden">{t('loginId')}: </span>
            <span data-testid="pane-login-id">{pane.loginId}</span>
          </div>
          <div className="small text-body-secondary">
            <span className="visually-hidden">{t('examName')}: </span>
            <span data-testid="pane-exam-name">{pane.examName}</span>
          </div>
        </div>
        <div className="text-end">
          <ConnectionBadge connection={pane.connection} />
          <div className="small mt-1" data-testid="pane-elapsed">
            <span className="me-1">{t('elapsed')}</span>
            <ElapsedTime since={pane.connectedSince} />
          </div>
        </div>
      </div>
      <div className="card-body p-2 d-flex flex-column gap-2">
        {pane.hasChannel ? (
          <PaneVideo testerId={testerId} muted={pane.muted} label={t('video', { name })} />
        ) : (
          <p className="small text-body-secondary mb-0">{t('noChannel')}</p>
        )}
        <div className="d-flex flex-wrap gap-1" role="group" aria-label={t('actions.label', { name })}>
          <Button
            size="sm"
            variant={pane.muted ? 'outline-secondary' : 'secondary'}
            style={BTN}
            aria-pressed={!pane.muted}
            onClick={() => dispatch(paneMutedChanged({ testerId, muted: !pane.muted }))}
            data-testid="pane-sound"
          >
            {pane.muted ? t('actions.soundOff') : t('actions.soundOn')}
          </Button>
          <Button
            size="sm"
            variant="outline-primary"
            style={BTN}
            disabled={busy || !pane.hasChannel}
            onClick={() => void dispatch(reconnectRequested(testerId))}
          >
            {t('actions.reconnect')}
          </Button>
          <Button
            size="sm"
            variant="outline-primary"
            style={BTN}
            onClick={() => dispatch(markingModalOpened(testerId))}
          >
            {t('actions.marking')}
          </Button>
          <Button
            size="sm"
            variant="outline-secondary"
            style={BTN}
            onClick={() => void dispatch(historyModalOpened())}
          >
            {t('actions.history')}
          </Button>
          <Button
            size="sm"
            variant="outline-danger"
            style={BTN}
            onClick={() => void dispatch(kickOutRequested(testerId))}
          >
            {t('actions.kickOut')}
          </Button>
        </div>
        <div className="d-flex flex-wrap align-items-center gap-2">
          <span className="small" data-testid="pane-auth-state">
            {t(`auth.state.${pane.auth}`)}
          </span>
          {pane.auth === 'authenticating' && (
            <Button
              size="sm"
              variant="warning"
              style={BTN}
              onClick={() => dispatch(authModalOpened(testerId))}
            >
              {t('actions.auth')}
            </Button>
          )}
          {pane.kicked && <span className="badge text-bg-danger">{t('kicked')}</span>}
        </div>
        <ExamineeImages name={name} headShot={pane.headShot} idCard={pane.idCard} size={72} />
        <PaneChat testerId={testerId} name={name} />
      </div>
    </article>
  );
});
