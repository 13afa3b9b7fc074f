import { useEffect } from 'react';
import Button from 'react-bootstrap/Button';
import { useTranslation } from 'react-i18next';
import { useAppDispatch, useAppSelector } from '../../../app/hooks';
import {
  helpToggled,
  monitoringStarted,
  monitoringStopped,
  selectActivation,
  selectEnlargedTesterId,
  selectPaneIds,
  selectAuthTesterId,
  selectChatTesterId,
  selectHelpOpen,
  selectHistory,
  selectMarking,
  selectPane,
} from '../monitoring-slice';
import { activationToggled, historyModalOpened } from '../monitoring-thunks';
import { AlertControls, AlertList } from './console-alerts';
import { useConsoleShortcuts } from './console-shortcuts';
import { EndedExaminees } from './ended-examinees';
import { ServerStatus } from './server-status';
import { deferredPart } from '../../../components/ui/deferred-part';
import { addTexts } from '../../../i18n';
import type { RootState } from '../../../app/store';

// The dialogs' code and the texts only they show, together.
const dialogs = () =>
  import('./console-dialogs').then(async (m) => {
    await addTexts(m.texts);
    return m;
  });
const AuthModal = deferredPart(() => dialogs().then((m) => m.AuthModal)).Part;
const MarkingModal = deferredPart(() => dialogs().then((m) => m.MarkingModal)).Part;
const HistoryModal = deferredPart(() => dialogs().then((m) => m.HistoryModal)).Part;
const ChatPanel = deferredPart(() => dialogs().then((m) => m.ChatPanel)).Part;
const HelpOverlay = deferredPart(() => dialogs().then((m) => m.HelpOverlay)).Part;
// The panes show once the first matching poll has answered: their code loads while that poll is on its way
// (from the console's first render), so the checker rarely sees a pane's loading status.
const panes = deferredPart(() => import('./monitor-pane').then((m) => m.MonitorPane));
const MonitorPane = panes.Part;

/** Whether a dialog that belongs to one examinee's pane is open (its pane is still there). */
const paneDialogOpen = (s: RootState, testerId: number | null) =>
  testerId !== null && selectPane(s, testerId) !== undefined;

/** spec §9: a monitor pane row shows up to 5 examinees. */
export const MAX_PANES = 5;

/**
 * The checker's console (PRE00006), built for a three-hour shift: up to five panes side by side that
 * fit a 1366×768 screen without scrolling (one can be enlarged, the others stay in view beside it), alerts for
 * what needs the checker, a notice while the server cannot be reached, keyboard shortcuts for every pane
 * action, the chat in a side panel, and the auth, marking, history and help dialogs. Opening it starts the
 * matching poll and the live feed; leaving it stops every viewer.
 */
export function MonitoringConsole() {
  const { t } = useTranslation('monitoring');
  const dispatch = useAppDispatch();
  const ids = useAppSelector(selectPaneIds);
  const activation = useAppSelector(selectActivation);
  const enlarged = useAppSelector(selectEnlargedTesterId);
  const shortcutMessage = useConsoleShortcuts();
  const authOpen = useAppSelector((s) => paneDialogOpen(s, selectAuthTesterId(s)));
  const markingOpen = useAppSelector((s) => selectMarking(s) !== null);
  const historyOpen = useAppSelector((s) => selectHistory(s).open);
  const chatOpen = useAppSelector((s) => paneDialogOpen(s, selectChatTesterId(s)));
  const helpOpen = useAppSelector(selectHelpOpen);

  useEffect(() => {
    panes.preload().catch(() => undefined);
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
          // Bootstrap's switch as plain markup (what react-bootstrap's Form.Check renders): the Form barrel would
          // bring every form control to the console for this one switch.
          <div className="mb-0 form-check form-switch" style={{ minHeight: 24 }}>
            <input
              type="checkbox"
              id="monitor-activation"
              className="form-check-input"
              checked={activation.active}
              disabled={activation.status === 'saving'}
              onChange={() => void dispatch(activationToggled())}
            />
            <label htmlFor="monitor-activation" className="form-check-label">
              {`${t('activation.label')} (${activation.active ? t('activation.on') : t('activation.off')})`}
            </label>
          </div>
        )}
        <div className="ms-auto d-flex flex-wrap align-items-center gap-2">
          <AlertControls onHelp={() => dispatch(helpToggled(true))} />
          <Button size="sm" variant="outline-secondary" onClick={() => void dispatch(historyModalOpened())}>
            {t('actions.history')}
          </Button>
        </div>
      </div>
      <ServerStatus />
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
                needed
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
      <AuthModal needed={authOpen} />
      <MarkingModal needed={markingOpen} />
      <HistoryModal needed={historyOpen} />
      <ChatPanel needed={chatOpen} />
      <HelpOverlay needed={helpOpen} />
    </div>
  );
}
