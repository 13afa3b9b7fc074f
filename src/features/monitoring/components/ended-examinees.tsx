import Button from 'react-bootstrap/Button';
import { useTranslation } from 'react-i18next';
import { useAppDispatch, useAppSelector } from '../../../app/hooks';
import { formatDateTime } from '../monitoring-format';
import { endedDismissed, selectEnded } from '../monitoring-slice';

/**
 * Examinees whose matching with this checker ended in the last minutes, with the reason in words (logged out,
 * kicked out, finished, window closed, no response, connection lost …), so a pane never vanishes unexplained.
 * Each notice can be closed; an examinee matched again gets its pane back instead.
 */
export function EndedExaminees() {
  const { t } = useTranslation('monitoring');
  const dispatch = useAppDispatch();
  const ended = useAppSelector(selectEnded);
  return (
    <section
      aria-labelledby={ended.length ? 'ended-heading' : undefined}
      className={ended.length ? 'mb-2' : ''}
    >
      {ended.length > 0 && (
        <h2 id="ended-heading" className="h6 mb-1">
          {t('ended.heading')}
        </h2>
      )}
      {/* Always rendered: a live region must exist before what it announces. */}
      <ul
        className="list-unstyled d-flex flex-wrap gap-2 mb-0"
        aria-live="polite"
        data-testid="ended-examinees"
      >
        {ended.map((e) => (
          <li
            key={e.monitorId}
            className={`border rounded px-2 py-1 d-flex align-items-center gap-2 ${
              e.unwatched ? 'border-danger border-2' : 'border-secondary-subtle'
            }`}
            data-testid={`ended-${e.testerId}`}
            data-reason={e.reason}
            data-unwatched={e.unwatched ? 'true' : undefined}
          >
            <span>
              <strong>{e.loginId}</strong>{' '}
              {e.examName && <span className="text-body-secondary">{e.examName}</span>}
              {' — '}
              {t(`ended.reasons.${e.reason}`)}
              <span className="small text-body-secondary ms-1">({formatDateTime(e.endedAt)})</span>
              {e.unwatched && (
                <span className="badge text-bg-danger ms-2" data-testid="ended-unwatched">
                  {t('ended.unwatched')}
                </span>
              )}
            </span>
            <Button
              size="sm"
              variant="outline-secondary"
              style={{ minHeight: 32, minWidth: 32 }}
              aria-label={t('ended.dismissLabel', { loginId: e.loginId })}
              onClick={() => dispatch(endedDismissed(e.monitorId))}
            >
              {t('ended.dismiss')}
            </Button>
          </li>
        ))}
      </ul>
    </section>
  );
}
