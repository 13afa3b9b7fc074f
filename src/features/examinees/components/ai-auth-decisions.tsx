import { useTranslation } from 'react-i18next';
import Badge from 'react-bootstrap/Badge';
import Table from 'react-bootstrap/Table';
import type { ExamineeDetail } from '../../../api/examinee-detail';
import { formatLocalDateTime } from '../../../lib/dates';

type AiAuth = NonNullable<ExamineeDetail['aiAuth']>;
type Attempt = AiAuth['attempts'][number];

/** Sitting outcomes that a manager has to look at: handed to a monitor, or continued for review. */
const REVIEW_STATUSES = new Set([2, 4]);

const localTime = (iso: string) => {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : formatLocalDateTime(d);
};

/** Whether an attempt needs a person's judgement: an uncertain face match or no AI verdict at all. */
function needsReview(a: Attempt): boolean {
  return a.scores.matchClass === 2 || a.outcome === 'unavailable';
}

/**
 * The AI identity check of a sitting as stored (issue #6): how it ended, the retries used, and every attempt
 * with its decision, the reason and the scores behind it, so a manager can see why.
 */
export function AiAuthDecisions({ aiAuth }: { aiAuth: AiAuth }) {
  const { t } = useTranslation('examinees');
  const label = (group: string, code: string | number) =>
    t(`detail.aiAuth.${group}.${code}`, { defaultValue: String(code) });
  const review = REVIEW_STATUSES.has(aiAuth.status);
  return (
    <div>
      <p className={review ? 'fw-bold text-warning-emphasis' : undefined} data-testid="ai-auth-status">
        {t('detail.aiAuth.result')}: {label('statuses', aiAuth.status)}
        {review && (
          <Badge bg="warning" text="dark" className="ms-2">
            {t('detail.aiAuth.needsReview')}
          </Badge>
        )}
      </p>
      <p className="small">
        {t('detail.aiAuth.retries', {
          face: aiAuth.faceRetry,
          idCard: aiAuth.idCardRetry,
          all: aiAuth.aiAllRetry,
        })}
      </p>
      {aiAuth.attempts.length === 0 ? (
        <p>{t('detail.aiAuth.noAttempts')}</p>
      ) : (
        <Table bordered size="sm" responsive>
          <caption>{t('detail.aiAuth.caption')}</caption>
          <thead>
            <tr>
              <th scope="col">{t('detail.aiAuth.at')}</th>
              <th scope="col">{t('detail.aiAuth.kind')}</th>
              <th scope="col">{t('detail.aiAuth.outcome')}</th>
              <th scope="col">{t('detail.aiAuth.reason')}</th>
              <th scope="col">{t('detail.aiAuth.similarity')}</th>
              <th scope="col">{t('detail.aiAuth.nameMatch')}</th>
              <th scope="col">{t('detail.aiAuth.idType')}</th>
              <th scope="col">{t('detail.aiAuth.photo')}</th>
            </tr>
          </thead>
          <tbody>
            {aiAuth.attempts.map((a) => {
              const s = a.scores;
              const flagged = needsReview(a);
              return (
                <tr
                  key={a.id}
                  className={flagged ? 'table-warning' : undefined}
                  data-testid="ai-auth-attempt"
                >
                  <td>{localTime(a.createdAt)}</td>
                  <td>{label('kinds', a.kind)}</td>
                  <td className={a.outcome === 'ok' ? undefined : 'fw-bold'}>
                    {label('outcomes', a.outcome)}
                    {flagged && (
                      <Badge bg="warning" text="dark" className="ms-1">
                        {t('detail.aiAuth.needsReview')}
                      </Badge>
                    )}
                  </td>
                  <td>{a.reason ? label('reasons', a.reason) : '-'}</td>
                  <td>
                    {s.cosine !== undefined
                      ? `${s.cosine.toFixed(2)}${s.matchClass ? ` (${label('matchClasses', s.matchClass)})` : ''}`
                      : '-'}
                  </td>
                  <td>{s.nameMatch !== undefined ? s.nameMatch : '-'}</td>
                  <td>{s.idTypeRead !== undefined ? label('idTypes', s.idTypeRead) : '-'}</td>
                  <td>
                    {a.imageUrl ? (
                      <a href={a.imageUrl} target="_blank" rel="noreferrer">
                        {t('detail.aiAuth.openPhoto', { kind: label('kinds', a.kind) })}
                      </a>
                    ) : (
                      '-'
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </Table>
      )}
    </div>
  );
}
