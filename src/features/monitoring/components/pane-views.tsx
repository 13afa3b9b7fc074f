import { useTranslation } from 'react-i18next';
import { useAppDispatch } from '../../../app/hooks';
import type { Pane } from '../monitoring-slice';
import { paneMainViewChosen } from '../monitoring-slice';
import type { PaneViewId, PaneViewStatus } from '../pane-views';
import { PaneVideo } from './pane-video';

/** What a view shows now: the camera's from the pane's connection, the others' from their own status. */
function statusOf(pane: Pane, view: PaneViewId): PaneViewStatus {
  if (view === 'camera') return pane.connection === 'reconnecting' ? 'connecting' : pane.connection;
  return pane.viewStatus[view] ?? 'waiting';
}

/**
 * The pane's live views (README "The wider view"): the main one large, the others small in its corner (beside
 * it when the pane is enlarged), each with its name and state, and a button that shows it large instead. The
 * <video> elements stay in place whichever is large (only their class changes), so switching never restarts
 * a stream. With the camera alone it is just the camera.
 */
export function PaneViews({ pane, name }: { pane: Pane; name: string }) {
  const { t } = useTranslation('monitoring');
  const dispatch = useAppDispatch();
  const several = pane.views.length > 1;
  let thumb = 0;
  return (
    <div
      className={`pane-views${several ? ' has-extra' : ''}`}
      data-testid="pane-views"
      data-main={pane.mainView}
    >
      {pane.views.map((view) => {
        const main = view === pane.mainView;
        const status = statusOf(pane, view);
        const viewName = t(`views.${view}`);
        const index = main ? -1 : thumb++;
        return (
          <div
            key={view}
            className={`pane-view ${main ? 'is-main' : 'is-thumb'}`}
            style={main ? undefined : { ['--thumb-index' as string]: index }}
            data-testid={`pane-view-${view}`}
            data-status={status}
          >
            <PaneVideo
              testerId={pane.testerId}
              view={view}
              muted={pane.muted}
              label={t('viewVideo', { name, view: viewName, status: t(`viewStatus.${status}`) })}
            />
            {several && (
              <div className="pane-view-bar">
                {main ? (
                  <span className="badge text-bg-dark">{viewName}</span>
                ) : (
                  <button
                    type="button"
                    className="btn btn-sm btn-dark pane-view-switch"
                    onClick={() => dispatch(paneMainViewChosen({ testerId: pane.testerId, view }))}
                    aria-label={t('actions.showLarge', { view: viewName, name })}
                    data-testid={`pane-show-${view}`}
                  >
                    {viewName}
                  </button>
                )}
                {view !== 'camera' && status !== 'live' && (
                  <span className="badge text-bg-warning" data-testid={`pane-view-status-${view}`}>
                    {t(`viewStatus.${status}`)}
                  </span>
                )}
              </div>
            )}
          </div>
        );
      })}
    </div>
  );
}
