import { useTranslation } from 'react-i18next';
import { useAppDispatch, useAppSelector } from '../../../app/hooks';
import { selectRecording, uploadRetryRequested } from '../recording-slice';

/**
 * The examinee's recording state (spec §2 /examining "a recording state"): recording, uploading
 * n of m, waiting for the network, done, or the error with a retry. Announced politely (aria-live). Renders
 * nothing while no recording was asked for, so any tester page may include it.
 */
export function RecordingStatus() {
  const { t } = useTranslation('recording');
  const dispatch = useAppDispatch();
  const r = useAppSelector(selectRecording);
  const backlogActive = r.backlog.partsTotal > r.backlog.partsDone || r.backlog.bytesPending > 0;
  if (r.phase === 'idle' && !backlogActive) return null;
  const counts = { done: r.counts.partsDone, total: r.counts.partsTotal };
  const sending = !r.recorderRunning && (r.phase === 'uploading' || r.phase === 'waiting-network');
  return (
    <div
      role="status"
      aria-live="polite"
      className="small mb-2"
      data-testid="recording-status"
      data-phase={r.phase}
      data-parts-done={r.counts.partsDone}
      data-parts-total={r.counts.partsTotal}
    >
      {r.phase !== 'idle' && (
        <p className={`mb-1 ${r.phase === 'error' ? 'text-danger' : 'text-body-secondary'}`}>
          {t('status.label')}: {t(`status.${r.phase}`, counts)}
          {r.phase === 'recording' && r.counts.partsTotal > 0 && <> / {t('parts', counts)}</>}
        </p>
      )}
      {backlogActive && (
        <p className="mb-1 text-body-secondary" data-testid="recording-backlog">
          {t('backlog', { done: r.backlog.partsDone, total: r.backlog.partsTotal })}
        </p>
      )}
      {(sending || backlogActive) && <p className="mb-1 fw-bold">{t('keepOpen')}</p>}
      {r.allow === false && <p className="mb-1 text-danger">{t('deviceUnavailable')}</p>}
      {r.durable === false && <p className="mb-1 text-warning-emphasis">{t('notDurable')}</p>}
      {r.phase === 'error' && r.errorKey && (
        <div className="text-danger">
          <p className="mb-1">{t(r.errorKey.replace('recording:', '') as 'failed')}</p>
          {r.errorReason && (
            <p className="mb-1">{t(`reason.${r.errorReason}` as 'reason.rejected', { defaultValue: '' })}</p>
          )}
          {r.errorKey === 'recording:uploadFailed' && (
            <button
              type="button"
              className="btn btn-sm btn-outline-danger"
              onClick={() => dispatch(uploadRetryRequested())}
            >
              {t('retry')}
            </button>
          )}
        </div>
      )}
    </div>
  );
}
