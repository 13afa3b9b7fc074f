import { useTranslation } from 'react-i18next';
import type { StreamKind } from '@contract/constants/wider-view';
import { formatDateTime } from '../../lib/dates';
import { cheatingLevelKey, examineeLogKey, recordStatusKey, testerStatusKey } from '../../lib/labels';
import { DateTime } from '../ui/date-time';
import { useText } from '../ui/use-text';

/** The sitting a report is about: the fields of tester/detail it shows (camelCase, from src/api). */
export interface ReportData {
  testId: number;
  examName: string;
  loginId: string;
  exLoginId: string | null;
  group: string | null;
  groupCode?: string | null;
  testName: string;
  region: string;
  testAt: string | null;
  stopAt: string | null;
  status: number;
  cheatingLevel?: number;
  headShotUri: string | null;
  idCardUri: string | null;
  examineeLogs: { event: string; detail?: string; createdAt: string }[];
  markings: {
    id: number;
    markingAt: string;
    url: string | null;
    message: string;
    label: string;
    score: number;
    playTimeFrom?: number | null;
  }[];
  markingTotalScore: number;
  aiMarkings: {
    id: number;
    markingAt: string;
    url: string | null;
    mark: string;
    score: number;
    playTimeFrom?: number | null;
    /** Taken while the connection was down: listed, not scored. */
    excused?: boolean;
  }[];
  aiMarkingTotalScore: number;
  records: {
    id: number;
    /** What it records; absent (an API without streams): the camera. */
    stream?: StreamKind | undefined;
    startAt: string;
    stopAt: string | null;
    movieStatus: string;
  }[];
}

const AI_TYPES = ['eye_rot', 'other_person', 'people_num', 'voice'] as const;

/** Seconds into a recording as hh:mm:ss. */
function clock(s: number): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${p(Math.floor(s / 3600))}:${p(Math.floor((s % 3600) / 60))}:${p(s % 60)}`;
}

/**
 * A print-ready examinee report (A4, the page's language): identity and photos, the sitting's timeline from
 * the server's examinee log, markings and AI markings with their stills and times, the recordings, and, for
 * managers, the pass/fail decision. `decision` null leaves the decision out (the examinee's own report).
 */
export function ExamineeReport({
  data,
  decision,
  generatedAt,
  titleLevel = 1,
}: {
  data: ReportData;
  decision: 0 | 1 | 'undecided' | null;
  generatedAt: number;
  /** 1 when the report is the page (its title is the page's h1), 2 inside another page. */
  titleLevel?: 1 | 2;
}) {
  const { t } = useTranslation('common');
  const text = useText();
  const aiLabel = (mark: string) =>
    (AI_TYPES as readonly string[]).includes(mark)
      ? t(`report.ai.${mark as (typeof AI_TYPES)[number]}`)
      : t('report.ai.other');
  const dash = (v: string | null | undefined) => (v ? v : '-');
  const Title = titleLevel === 1 ? 'h1' : 'h2';
  const H = titleLevel === 1 ? 'h2' : 'h3';
  return (
    <article className="examinee-report" aria-labelledby="report-title" data-testid="examinee-report">
      <header className="mb-3">
        <Title id="report-title" className="h3">
          {t('report.title')}
        </Title>
        <p className="small text-body-secondary mb-0">
          {t('report.generatedAt', { time: formatDateTime(generatedAt) })}
        </p>
      </header>
      <section aria-labelledby="report-identity" className="report-section">
        <H id="report-identity" className="h5 border-bottom pb-1">
          {t('report.identity')}
        </H>
        <table className="table table-sm report-table">
          <tbody>
            <tr>
              <th scope="row">{t('report.name')}</th>
              <td data-testid="report-name">{dash(data.examName)}</td>
              <th scope="row">{t('report.loginId')}</th>
              <td>{dash(data.loginId)}</td>
            </tr>
            <tr>
              <th scope="row">{t('report.group')}</th>
              <td>{data.group ? `${data.group}${data.groupCode ? ` (${data.groupCode})` : ''}` : '-'}</td>
              <th scope="row">{t('report.testId')}</th>
              <td>{data.testId}</td>
            </tr>
            <tr>
              <th scope="row">{t('report.testName')}</th>
              <td>{dash(data.testName)}</td>
              <th scope="row">{t('report.region')}</th>
              <td>{dash(data.region)}</td>
            </tr>
            <tr>
              <th scope="row">{t('report.testAt')}</th>
              <td>
                <DateTime value={data.testAt} />
              </td>
              <th scope="row">{t('report.stopAt')}</th>
              <td>
                <DateTime value={data.stopAt} />
              </td>
            </tr>
            <tr>
              <th scope="row">{t('report.status')}</th>
              <td>{text(testerStatusKey(data.status) ?? 'common:testerStatus.0')}</td>
              <th scope="row">{t('report.cheatingLevel')}</th>
              <td>{data.cheatingLevel === undefined ? '-' : text(cheatingLevelKey(data.cheatingLevel))}</td>
            </tr>
          </tbody>
        </table>
        <div className="d-flex gap-3 flex-wrap report-photos">
          {(
            [
              ['headShot', data.headShotUri],
              ['idCard', data.idCardUri],
            ] as const
          ).map(([k, uri]) => (
            <figure key={k} className="mb-0">
              {uri ? (
                <img src={uri} alt={t(`report.${k}`)} style={{ maxWidth: 200, maxHeight: 160 }} />
              ) : (
                <p className="small">{t('report.noImage')}</p>
              )}
              <figcaption className="small">{t(`report.${k}`)}</figcaption>
            </figure>
          ))}
        </div>
      </section>
      <section aria-labelledby="report-timeline" className="report-section">
        <H id="report-timeline" className="h5 border-bottom pb-1">
          {t('report.timeline')}
        </H>
        {data.examineeLogs.length === 0 ? (
          <p>{t('report.none')}</p>
        ) : (
          <table className="table table-sm report-table">
            <thead>
              <tr>
                <th scope="col">{t('report.time')}</th>
                <th scope="col">{t('report.event')}</th>
              </tr>
            </thead>
            <tbody>
              {data.examineeLogs.map((l, i) => (
                <tr key={`${l.createdAt}-${i}`}>
                  <td className="text-nowrap">
                    <DateTime value={l.createdAt} />
                  </td>
                  <td>{text(examineeLogKey(l.event, l.detail))}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
      <section aria-labelledby="report-markings" className="report-section">
        <H id="report-markings" className="h5 border-bottom pb-1">
          {t('report.markings', { count: data.markings.length, score: data.markingTotalScore })}
        </H>
        {data.markings.length === 0 ? (
          <p>{t('report.noMarkings')}</p>
        ) : (
          <table className="table table-sm report-table">
            <thead>
              <tr>
                <th scope="col">{t('report.time')}</th>
                <th scope="col">{t('report.mark')}</th>
                <th scope="col">{t('report.score')}</th>
                <th scope="col">{t('report.still')}</th>
              </tr>
            </thead>
            <tbody>
              {data.markings.map((m) => (
                <tr key={m.id} data-testid="report-marking">
                  <td className="text-nowrap">
                    <DateTime value={m.markingAt} />
                    {m.playTimeFrom != null && (
                      <div className="small">{t('report.inRecording', { time: clock(m.playTimeFrom) })}</div>
                    )}
                  </td>
                  <td>{m.message || m.label}</td>
                  <td>{m.score}</td>
                  <td>
                    {m.url ? (
                      <img
                        src={m.url}
                        alt={t('report.stillOf', { label: m.message })}
                        style={{ width: 120 }}
                      />
                    ) : (
                      '-'
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
      <section aria-labelledby="report-ai-markings" className="report-section">
        <H id="report-ai-markings" className="h5 border-bottom pb-1">
          {t('report.aiMarkings', { count: data.aiMarkings.length, score: data.aiMarkingTotalScore })}
        </H>
        {data.aiMarkings.length === 0 ? (
          <p>{t('report.noMarkings')}</p>
        ) : (
          <table className="table table-sm report-table">
            <thead>
              <tr>
                <th scope="col">{t('report.time')}</th>
                <th scope="col">{t('report.mark')}</th>
                <th scope="col">{t('report.score')}</th>
                <th scope="col">{t('report.still')}</th>
              </tr>
            </thead>
            <tbody>
              {data.aiMarkings.map((m) => (
                <tr key={m.id} data-testid="report-ai-marking">
                  <td className="text-nowrap">
                    <DateTime value={m.markingAt} />
                    {m.playTimeFrom != null && (
                      <div className="small">{t('report.inRecording', { time: clock(m.playTimeFrom) })}</div>
                    )}
                  </td>
                  <td>{aiLabel(m.mark)}</td>
                  <td>{m.excused ? t('report.excused') : m.score}</td>
                  <td>
                    {m.url ? (
                      <img
                        src={m.url}
                        alt={t('report.stillOf', { label: aiLabel(m.mark) })}
                        style={{ width: 120 }}
                      />
                    ) : (
                      '-'
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
      <section aria-labelledby="report-records" className="report-section">
        <H id="report-records" className="h5 border-bottom pb-1">
          {t('report.records')}
        </H>
        {data.records.length === 0 ? (
          <p>{t('report.none')}</p>
        ) : (
          <table className="table table-sm report-table">
            <thead>
              <tr>
                <th scope="col">{t('report.recordNo')}</th>
                <th scope="col">{t('report.recordStream')}</th>
                <th scope="col">{t('report.recordStart')}</th>
                <th scope="col">{t('report.recordStop')}</th>
                <th scope="col">{t('report.recordStatus')}</th>
              </tr>
            </thead>
            <tbody>
              {data.records.map((r, i) => (
                <tr key={r.id}>
                  <td>{i + 1}</td>
                  <td>{t(`streams.${r.stream ?? 'camera'}`)}</td>
                  <td>
                    <DateTime value={r.startAt} />
                  </td>
                  <td>
                    <DateTime value={r.stopAt} />
                  </td>
                  <td>{text(recordStatusKey(r.movieStatus))}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
      {decision !== null && (
        <section aria-labelledby="report-decision" className="report-section">
          <H id="report-decision" className="h5 border-bottom pb-1">
            {t('report.decision')}
          </H>
          <p data-testid="report-decision">
            {decision === 1 ? t('report.pass') : decision === 0 ? t('report.fail') : t('report.undecided')}
          </p>
        </section>
      )}
    </article>
  );
}
