import { useEffect } from 'react';
import Button from 'react-bootstrap/Button';
import Form from 'react-bootstrap/Form';
import { useTranslation } from 'react-i18next';
import { useAppDispatch, useAppSelector } from '../../../app/hooks';
import {
  helpToggled,
  monitoringStarted,
  monitoringStopped,
  selectActivation,
  selectEnlargedTesterId,
  selectPaneIds,
} from '../monitoring-slice';
import { activationToggled, historyModalOpened } from '../monitoring-thunks';
import { AuthModal } from './auth-modal';
import { ChatPanel } from './chat-panel';
import { AlertControls, AlertList } from './console-alerts';
import { useConsoleShortcuts } from './console-shortcuts';
import { EndedExaminees } from './ended-examinees';
import { HelpOverlay } from './help-overlay';
import { HistoryModal } from './history-modal';
import { MarkingModal } from './marking-modal';
import { MonitorPane } from './monitor-pane';

/** spec §9: a monitor pane row shows up to 5 examinees. */
export const MAX_PANES = 5;

/**
 * The checker's console (PRE00006), built for a three-hour shift: up to five panes side by side that
 * fit a 1366×768 screen without scrolling (one can be enlarged, the others stay in view beside it), alerts for
 * what needs the checker, keyboard shortcuts for every pane action, the chat in a side panel, and the auth,
 * marking, history and help dialogs. Opening it starts the matching poll and the live feed; leaving it stops
 * every viewer.
 */
export function MonitoringConsole() {
  const { t } = useTranslation('monitoring');
  const dispatch = useAppDispatch();
  const ids = useAppSelector(selectPaneIds);
  const activation = useAppSelector(selectActivation);
  const enlarged = useAppSelector(selectEnlargedTesterId);
  const shortcutMessage = useConsoleShortcuts();

  useEffect(() => {
    dispatch(monitoringStarted());
    return () => {
      dispatch(monitoringStopped());
    };
  }, [dispatch]);

  const large = enlarged !== null && ids.includes(enlarged) ? enlarged : null;
  const columns = Math.min(MAX_PANES, Math.max(3, ids.length));

  return (
    <div className="monitoring-console" data-testid="monitoring-console">
      <div className="d-flex flex-wrap align-items-center gap-2 mb-1 console-toolbar">
        <p className="mb-0" role="status" aria-live="polite" data-testid="pane-count">
          {t('paneCount', { count: ids.length, max: MAX_PANES })}
        </p>
        {activation && (
          <Form.Check
            type="switch"
            id="monitor-activation"
            className="mb-0"
            label={`${t('activation.label')} (${activation.active ? t('activation.on') : t('activation.off')})`}
            checked={activation.active}
            disabled={activation.status === 'saving'}
            onChange={() => void dispatch(activationToggled())}
            style={{ minHeight: 24 }}
          />
        )}
        <div className="ms-auto d-flex flex-wrap align-items-center gap-2">
          <AlertControls onHelp={() => dispatch(helpToggled(true))} />
          <Button size="sm" variant="outline-secondary" onClick={() => void dispatch(historyModalOpened())}>
            {t('actions.history')}
          </Button>
        </div>
      </div>
      <AlertList />
      <EndedExaminees />
      {ids.length === 0 ? (
        <p className="text-body-secondary" data-testid="monitoring-empty">
          {t('empty')}
        </p>
      ) : (
        <div
          className={`console-panes${large !== null ? ' has-enlarged' : ''}`}
          style={large === null ? { gridTemplateColumns: `repeat(${columns}, minmax(0, 1fr))` } : undefined}
          data-testid="monitor-panes"
          data-enlarged={large ?? undefined}
        >
          {ids.map((id, i) => (
            <div key={id} className={`console-pane-slot${id === large ? ' is-enlarged' : ''}`}>
              <MonitorPane
                testerId={id}
                number={i + 1}
                variant={large === null ? 'normal' : id === large ? 'large' : 'mini'}
              />
            </div>
          ))}
        </div>
      )}
      <p className="visually-hidden" role="status" aria-live="polite" data-testid="shortcut-message">
        {shortcutMessage}
      </p>
      <AuthModal />
      <MarkingModal />
      <HistoryModal />
      <ChatPanel />
      <HelpOverlay />
    </div>
  );
}
