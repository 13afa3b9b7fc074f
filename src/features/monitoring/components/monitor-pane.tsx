import { memo, type ReactNode } from 'react';
import Button from 'react-bootstrap/Button';
import { useTranslation } from 'react-i18next';
import { useAppDispatch, useAppSelector } from '../../../app/hooks';
import type { RootState } from '../../../app/store';
import { useText } from '../../../components/ui/use-text';
import { testerStatusKey } from '../../../lib/labels';
import {
  authModalOpened,
  chatOpened,
  paneEnlargeToggled,
  paneMutedChanged,
  paneSelected,
  selectPane,
  selectUnread,
} from '../monitoring-slice';
import {
  historyModalOpened,
  kickOutRequested,
  markingModalOpened,
  reconnectRequested,
  roomScanRequested,
} from '../monitoring-thunks';
import { ConnectionBadge } from './connection-badge';
import { paneDomId } from './console-shortcuts';
import { ElapsedTime } from './elapsed-time';
import { ExamineeImages } from './examinee-images';
import { FlagBadge, PaneLiveStills } from './pane-live';
import { PaneViews } from './pane-views';
import { paneIdentityState } from '../pane-identity';

/** A pane action: an icon with its name for screen readers and as a tooltip, and its shortcut key. */
function PaneButton({
  label,
  icon,
  shortcut,
  variant = 'outline-secondary',
  onClick,
  disabled,
  pressed,
  testId,
  children,
}: {
  label: string;
  icon: string;
  shortcut?: string;
  variant?: string;
  onClick(): void;
  disabled?: boolean;
  pressed?: boolean;
  testId?: string;
  children?: ReactNode;
}) {
  return (
    <button
      type="button"
      className={`btn btn-sm btn-${variant} pane-btn position-relative`}
      aria-label={label}
      title={shortcut ? `${label} (${shortcut.toUpperCase()})` : label}
      aria-keyshortcuts={shortcut}
      aria-pressed={pressed}
      disabled={disabled}
      onClick={onClick}
      data-testid={testId}
    >
      <span aria-hidden="true">{icon}</span>
      {children}
    </button>
  );
}

/**
 * One matched examinee, compact enough for five side by side on a 1366×768 screen: the
 * number its shortcut key names, name and login id, the AI flag badge, the live views (the camera, and the
 * screen and the phone when the sitting has them), the state line, the live stills and every action as a button. Enlarged
 * it also shows the head shot and ID card. Re-renders only when this pane's own data changes.
 */
export const MonitorPane = memo(function MonitorPane({
  testerId,
  number,
  variant = 'normal',
}: {
  testerId: number;
  /** 1-based position: the key that focuses it. */
  number: number;
  /** normal; large (enlarged); mini (beside an enlarged pane). */
  variant?: 'normal' | 'large' | 'mini';
}) {
  const { t } = useTranslation('monitoring');
  const text = useText();
  const dispatch = useAppDispatch();
  const pane = useAppSelector((s: RootState) => selectPane(s, testerId));
  const unread = useAppSelector((s: RootState) => selectUnread(s, testerId));
  if (!pane) return null;
  const name = pane.name ?? pane.loginId;
  const headingId = `pane-heading-${testerId}`;
  const busy = pane.connection === 'reconnecting';
  const status = testerStatusKey(pane.testerStatus);
  const identity = paneIdentityState(pane);
  const large = variant === 'large';

  return (
    <article
      id={paneDomId(testerId)}
      tabIndex={-1}
      className={`card monitor-pane is-${variant}`}
      aria-labelledby={headingId}
      data-testid={`monitor-pane-${testerId}`}
      data-tester-id={testerId}
      data-monitor-id={pane.monitorId}
      data-connection={pane.connection}
      data-auth={pane.auth}
      onFocus={() => dispatch(paneSelected(testerId))}
    >
      <div className="card-header p-1 d-flex align-items-start gap-1">
        <span className="badge text-bg-dark pane-number" aria-hidden="true">
          {number}
        </span>
        <div className="flex-grow-1 min-w-0">
          <h2 id={headingId} className="h6 mb-0 text-truncate" data-testid="pane-name">
            <span className="visually-hidden">{t('paneNumber', { n: number })}: </span>
            {pane.name ?? (pane.examName || t('unknownName'))}
          </h2>
          <div className="small text-truncate">
            <span className="visually-hidden">{t('loginId')}: </span>
            <span data-testid="pane-login-id">{pane.loginId}</span>
            {pane.testName && (
              <>
                <span aria-hidden="true"> · </span>
                <span className="visually-hidden">{t('examName')}: </span>
                <span data-testid="pane-test-name" className="text-body-secondary">
                  {pane.testName}
                </span>
              </>
            )}
          </div>
        </div>
        <FlagBadge testerId={testerId} />
      </div>
      <div className="card-body p-1 d-flex flex-column gap-1">
        {/* The media area: the camera, and the screen and the phone when the sitting has them. */}
        <div className="pane-media" data-testid="pane-media">
          {pane.hasChannel ? (
            <PaneViews pane={pane} name={name} />
          ) : (
            <p className="small text-body-secondary mb-0">{t('noChannel')}</p>
          )}
        </div>
        <div className="d-flex flex-wrap align-items-center gap-1 small" data-testid="pane-state">
          <ConnectionBadge connection={pane.connection} />
          <span data-testid="pane-elapsed">
            <span className="visually-hidden">{t('elapsed')} </span>
            <ElapsedTime since={pane.connectedSince} />
          </span>
          {status && (
            <span data-testid="pane-tester-status">
              <span className="visually-hidden">{t('testerState')}: </span>
              {text(status)}
            </span>
          )}
          <span
            data-testid="pane-auth-state"
            data-state={identity}
            className={identity === 'authenticating' ? 'fw-bold' : ''}
          >
            {t(`auth.state.${identity}`)}
          </span>
          {pane.kicked && <span className="badge text-bg-danger">{t('kicked')}</span>}
          {pane.roomScanEnabled && pane.roomScan !== 'none' && (
            <span
              className={`badge ${pane.roomScan === 'done' ? 'text-bg-success' : 'text-bg-warning'}`}
              data-testid="pane-room-scan"
              data-state={pane.roomScan}
            >
              {t(`roomScan.state.${pane.roomScan}`)}
            </span>
          )}
        </div>
        {variant !== 'mini' && <PaneLiveStills testerId={testerId} name={name} large={large} />}
        <div
          className="d-flex flex-wrap gap-1 pane-actions"
          role="group"
          aria-label={t('actions.label', { name })}
        >
          {pane.auth === 'authenticating' && (
            <Button
              size="sm"
              variant="warning"
              className="pane-btn"
              onClick={() => dispatch(authModalOpened(testerId))}
              aria-keyshortcuts="a r"
            >
              {t('actions.auth')}
            </Button>
          )}
          <PaneButton
            label={pane.muted ? t('actions.soundOff') : t('actions.soundOn')}
            icon={pane.muted ? '\u266a\u0338' : '\u266a'}
            shortcut="v"
            variant={pane.muted ? 'outline-secondary' : 'secondary'}
            pressed={!pane.muted}
            onClick={() => dispatch(paneMutedChanged({ testerId, muted: !pane.muted }))}
            testId="pane-sound"
          />
          <PaneButton
            label={t('actions.marking')}
            icon={'\u270e'}
            shortcut="m"
            variant="outline-primary"
            onClick={() => dispatch(markingModalOpened(testerId))}
          />
          <PaneButton
            label={unread ? t('actions.chatUnread', { count: unread }) : t('actions.chat')}
            icon={'\u2709'}
            shortcut="c"
            variant={unread ? 'primary' : 'outline-primary'}
            onClick={() => dispatch(chatOpened(testerId))}
            testId="pane-chat-button"
          >
            {unread > 0 && (
              <span className="badge rounded-pill text-bg-danger pane-btn-count" aria-hidden="true">
                {unread}
              </span>
            )}
          </PaneButton>
          <PaneButton
            label={t('actions.reconnect')}
            icon={'\u21bb'}
            variant="outline-primary"
            disabled={busy || !pane.hasChannel}
            onClick={() => void dispatch(reconnectRequested(testerId))}
          />
          <PaneButton
            label={large ? t('actions.restore') : t('actions.enlarge')}
            icon={large ? '\u2921' : '\u2922'}
            shortcut="e"
            pressed={large}
            onClick={() => dispatch(paneEnlargeToggled(testerId))}
            testId="pane-enlarge"
          />
          {pane.roomScanEnabled && (
            <PaneButton
              label={t('roomScan.requestOf', { name })}
              icon={'\u21ba'}
              variant="outline-primary"
              disabled={pane.roomScan === 'requested' || pane.roomScan === 'scanning'}
              onClick={() => void dispatch(roomScanRequested(testerId))}
              testId="pane-room-scan-request"
            />
          )}
          <PaneButton
            label={t('actions.history')}
            icon={'\u2630'}
            onClick={() => void dispatch(historyModalOpened())}
          />
          <PaneButton
            label={t('actions.kickOut')}
            icon={'\u2716'}
            shortcut="k"
            variant="outline-danger"
            onClick={() => void dispatch(kickOutRequested(testerId))}
          />
        </div>
        {large && <ExamineeImages name={name} headShot={pane.headShot} idCard={pane.idCard} size={96} />}
      </div>
    </article>
  );
});
