import Button from 'react-bootstrap/Button';
import { useTranslation } from 'react-i18next';
import { useAppDispatch, useAppSelector } from '../../../app/hooks';
import { useText } from '../../../components/ui/use-text';
import { canShareScreen } from '../../../media/screen-share';
import { roomScanOpened, selectWiderView } from '../wider-view-slice';
import { screenShareRequested } from '../wider-view-thunks';

/**
 * What the exam asks before it starts (README "The wider view"): sharing the entire screen and the room scan,
 * each with its state and its button. Nothing for a sitting without them. The screen's part stays on the page
 * during the exam (its state, and sharing again after it ended).
 */
export function WiderViewSteps({ beforeExam }: { beforeExam: boolean }) {
  const { t } = useTranslation('widerView');
  const text = useText();
  const dispatch = useAppDispatch();
  const w = useAppSelector(selectWiderView);
  if (!w.required.screen && !w.required.roomScan) return null;
  const screen = w.screen;
  const unsupported = !canShareScreen();
  return (
    <section aria-labelledby="wider-view-heading" className="mb-3" data-testid="wider-view-steps">
      <h2 id="wider-view-heading" className="h5">
        {beforeExam ? t('heading') : t('headingDuringExam')}
      </h2>
      {beforeExam && <p className="small">{t('intro')}</p>}
      {w.required.screen && (
        <div className="card mb-2" data-testid="screen-share-step" data-status={screen.status}>
          <div className="card-body p-2">
            <h3 className="h6">{t('screen.heading')}</h3>
            <p className="small mb-1" id="screen-share-explain">
              {t('screen.explain')}
            </p>
            <p className="mb-1 fw-bold" role="status" data-testid="screen-share-state">
              {t(`screen.state.${screen.status}`)}
            </p>
            <div role="alert">
              {(screen.errorKey || unsupported) && (
                <p className="text-danger mb-1" data-testid="screen-share-error">
                  {text(screen.errorKey ?? 'widerView:screen.errors.unsupported')}
                </p>
              )}
            </div>
            {screen.status !== 'shared' && (
              <Button
                onClick={() => void dispatch(screenShareRequested())}
                disabled={screen.status === 'asking' || unsupported}
                aria-describedby="screen-share-explain"
                data-testid="screen-share-button"
              >
                {screen.status === 'asking'
                  ? t('screen.asking')
                  : screen.status === 'ended'
                    ? t('screen.shareAgain')
                    : t('screen.share')}
              </Button>
            )}
          </div>
        </div>
      )}
      {w.required.roomScan && beforeExam && (
        <div className="card mb-2" data-testid="room-scan-step">
          <div className="card-body p-2">
            <h3 className="h6">{t('roomScan.heading')}</h3>
            <p className="small mb-1" id="room-scan-explain">
              {t('roomScan.explain')}
            </p>
            <p className="mb-1 fw-bold" role="status" data-testid="room-scan-state">
              {w.roomScan.done > 0 ? t('roomScan.done', { count: w.roomScan.done }) : t('roomScan.notDone')}
            </p>
            {w.roomScan.done === 0 && (
              <Button
                onClick={() => dispatch(roomScanOpened({ scanId: null, requestedByChecker: false }))}
                disabled={w.roomScan.phase !== 'idle'}
                aria-describedby="room-scan-explain"
                data-testid="room-scan-open"
              >
                {t('roomScan.start')}
              </Button>
            )}
          </div>
        </div>
      )}
    </section>
  );
}
