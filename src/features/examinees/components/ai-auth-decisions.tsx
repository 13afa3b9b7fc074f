import { useTranslation } from 'react-i18next';
import Badge from 'react-bootstrap/Badge';
import Table from 'react-bootstrap/Table';
import type { ExamineeDetail } from '../../../api/examinee-detail';
import { DateTime } from '../../../components/ui/date-time';

type AiAuth = NonNullable<ExamineeDetail['aiAuth']>;
type Attempt = AiAuth['attempts'][number];

/** Sitting outcomes that a manager has to look at: handed to a monitor, or continued for review. */
const REVIEW_STATUSES = new Set([2, 4]);
/** Sitting outcomes reached by a fallback of is_ai_faild_manual: monitor, forced logout, continue. */
const FALLBACK_STATUSES = [2, 3, 4] as const;
type FallbackStatus = (typeof FALLBACK_STATUSES)[number];
const isFallback = (status: number): status is FallbackStatus =>
  (FALLBACK_STATUSES as readonly number[]).includes(status);

type Figure = 'sharpness' | 'luma' | 'faceScore' | 'faceSide' | 'angle' | 'cardFaceSide' | 'ocrConfidence';

/** Whether an attempt needs a person's judgement: an uncertain face match or no AI verdict at all. */
function needsReview(a: Attempt): boolean {
  return a.scores.matchClass === 2 || a.outcome === 'unavailable';
}

const round = (v: number) => Math.round(v);

/**
 * The quality figures behind a decision, as [i18n key, values] pairs: for a face photo what the gate measured
 * (sharpness, brightness, detector score, face size, angle); for an ID photo the card's photo size and the
 * OCR confidence.
 */
function qualityFigures(s: Attempt['scores']): [Figure, Record<string, number | string>][] {
  const out: [Figure, Record<string, number | string>][] = [];
  const add = (key: Figure, v: number | undefined, format: (n: number) => number | string = round) => {
    if (v !== undefined) out.push([key, { value: format(v) }]);
  };
  add('sharpness', s.sharpness);
  add('luma', s.luma);
  add('faceScore', s.faceScore, (n) => n.toFixed(2));
  add('faceSide', s.faceSide);
  if (s.yaw !== undefined && s.pitch !== undefined)
    out.push(['angle', { yaw: round(Math.abs(s.yaw)), pitch: round(Math.abs(s.pitch)) }]);
  add('cardFaceSide', s.cardFaceSide);
  add('ocrConfidence', s.ocrConfidence);
  return out;
}

/**
 * The AI identity check of a sitting as stored: how it ended, the retries used, and every attempt
 * with its decision, the reason and the scores behind it (face count, similarity and its class, name-match
 * rate, ID type read, quality figures), so a manager can see why. An uncertain match and the photo the
 * examinee continued with for review are marked "Needs review" in words as well as colour; the attempt that
 * led to a fallback says which.
 */
export function AiAuthDecisions({ aiAuth }: { aiAuth: AiAuth }) {
  const { t } = useTranslation('examinees');
  const label = (group: string, code: string | number) =>
    t(`detail.aiAuth.${group}.${code}`, { defaultValue: String(code) });
  const review = REVIEW_STATUSES.has(aiAuth.status);
  // Once a fallback is taken the check is over, so the last attempt is the one that led to it.
  const fallback = isFallback(aiAuth.status) ? aiAuth.status : null;
  const fallbackId = fallback !== null ? aiAuth.attempts.at(-1)?.id : undefined;
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
              <th scope="col">{t('detail.aiAuth.faces')}</th>
              <th scope="col">{t('detail.aiAuth.similarity')}</th>
              <th scope="col">{t('detail.aiAuth.nameMatch')}</th>
              <th scope="col">{t('detail.aiAuth.idType')}</th>
              <th scope="col">{t('detail.aiAuth.quality')}</th>
              <th scope="col">{t('detail.aiAuth.photo')}</th>
            </tr>
          </thead>
          <tbody>
            {aiAuth.attempts.map((a) => {
              const s = a.scores;
              const ledToFallback = a.id === fallbackId;
              const flagged = needsReview(a) || (ledToFallback && review);
              const quality = qualityFigures(s);
              const faces = s.faces ?? s.cardFaces;
              return (
                <tr
                  key={a.id}
                  className={flagged ? 'table-warning' : undefined}
                  data-testid="ai-auth-attempt"
                >
                  <td>
                    <DateTime value={a.createdAt} />
                  </td>
                  <td>{label('kinds', a.kind)}</td>
                  <td className={a.outcome === 'ok' ? undefined : 'fw-bold'}>
                    {label('outcomes', a.outcome)}
                    {flagged && (
                      <Badge bg="warning" text="dark" className="ms-1">
                        {t('detail.aiAuth.needsReview')}
                      </Badge>
                    )}
                    {ledToFallback && fallback !== null && (
                      <div className="small" data-testid="ai-auth-fallback">
                        {t(`detail.aiAuth.fallbackTaken.${fallback}`)}
                      </div>
                    )}
                  </td>
                  <td>{a.reason ? label('reasons', a.reason) : '-'}</td>
                  <td>{faces !== undefined ? faces : '-'}</td>
                  <td>
                    {s.cosine !== undefined
                      ? `${s.cosine.toFixed(2)}${s.matchClass ? ` (${label('matchClasses', s.matchClass)})` : ''}`
                      : '-'}
                    {s.liveCosine !== undefined && (
                      <div className="small">
                        {t('detail.aiAuth.holderSimilarity', { value: s.liveCosine.toFixed(2) })}
                      </div>
                    )}
                  </td>
                  <td>{s.nameMatch !== undefined ? s.nameMatch : '-'}</td>
                  <td>{s.idTypeRead !== undefined ? label('idTypes', s.idTypeRead) : '-'}</td>
                  <td>
                    {quality.length ? (
                      <ul className="list-unstyled small mb-0">
                        {quality.map(([key, values]) => (
                          <li key={key}>{t(`detail.aiAuth.figures.${key}`, values)}</li>
                        ))}
                      </ul>
                    ) : (
                      '-'
                    )}
                  </td>
                  <td>
                    {a.imageUrl ? (
                      // Blue on the warning row's yellow is below 4.5:1; dark (still underlined) is not.
                      <a
                        href={a.imageUrl}
                        target="_blank"
                        rel="noreferrer"
                        className={flagged ? 'link-dark' : undefined}
                      >
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
