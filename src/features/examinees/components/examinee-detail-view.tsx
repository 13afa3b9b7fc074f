import { useEffect, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { AlertBox } from '../../../components/ui/alert-box';
import Table from 'react-bootstrap/Table';
import { useAppDispatch, useAppSelector } from '../../../app/hooks';
import { DateTime } from '../../../components/ui/date-time';
import { useText, type TextFn } from '../../../components/ui/use-text';
import type { ExamineeDetail } from '../../../api/examinee-detail';
import { formatDateTime, msBetween } from '../../../lib/dates';
import {
  cheatingLevelKey,
  examineeLogKey,
  markerText,
  recordStatusKey,
  testerStatusKey,
} from '../../../lib/labels';
import { camelKey } from '../../../lib/case';
import { PARAM_FIELDS } from '../../../lib/startup-param-fields';
import { selectActor } from '../../session/session-slice';
import { selectExamineeDetail } from '../examinees-slice';
import { detailOpened } from '../examinee-detail-thunks';
import { AiAuthDecisions } from './ai-auth-decisions';
import { PassFailSetting } from './pass-fail-setting';
import { RecordingTimeline, type TimelinePoint } from './recording-timeline';
import { MANAGER_ACTORS } from '@contract/constants/common';
import type { StreamKind } from '@contract/constants/wider-view';
import { runtimeKey } from '../../../lib/translation-key';

function Section({ id, title, children }: { id: string; title: string; children: ReactNode }) {
  return (
    <section aria-labelledby={id} className="mb-4">
      <h2 id={id} className="h5 border-bottom pb-1">
        {title}
      </h2>
      {children}
    </section>
  );
}

function Pairs({ rows }: { rows: [string, ReactNode][] }) {
  return (
    <dl className="row mb-0">
      {rows.map(([k, v]) => (
        <div key={k} className="col-md-6 d-flex">
          <dt className="me-2 text-nowrap">{k}</dt>
          <dd className="mb-1">{v ?? '-'}</dd>
        </div>
      ))}
    </dl>
  );
}

/** The start-up parameters by their camelCase names (as src/api hands them) → their start-up name and kind. */
/** The AI check's marks that have a label (examinees:ai.*); any other mark is shown as the server sent it. */
const AI_MARKS = ['eye_rot', 'other_person', 'people_num', 'voice'] as const;
const isAiMark = (m: string): m is (typeof AI_MARKS)[number] => (AI_MARKS as readonly string[]).includes(m);

const PARAMS = new Map(PARAM_FIELDS.map(([name, kind]) => [camelKey(name), { name, kind }] as const));

/**
 * The sitting's settings as labelled values (the short-URL form's labels and options): flags as on/off,
 * options by their names, lists joined. Parameters the form does not know are left out.
 */
function settingRows(params: Record<string, unknown>, text: TextFn): [string, string][] {
  const rows: [string, string][] = [];
  for (const [key, raw] of Object.entries(params)) {
    const p = PARAMS.get(key);
    if (!p || p.name === 'memo' || raw === null || raw === undefined || raw === '') continue;
    // The parameter table (short-url-fields.ts) names the label and option texts.
    const label = text(runtimeKey(`management:shortUrl.fields.${p.name}`));
    const option = (v: string | number) => text(runtimeKey(`management:shortUrl.options.${p.name}.${v}`));
    let value: string;
    switch (p.kind.kind) {
      case 'flag':
        value = Number(raw) === 1 ? text('management:on') : text('management:off');
        break;
      case 'select':
        value = (p.kind.options as readonly (string | number)[]).map(String).includes(String(raw))
          ? option(String(raw))
          : String(raw);
        break;
      case 'multi': {
        const list = Array.isArray(raw) ? raw.map(String) : String(raw).split(',').filter(Boolean);
        value = list.map((v) => option(v)).join('、');
        break;
      }
      default:
        value = p.name === 'exam_datetime' ? formatDateTime(String(raw)) || String(raw) : String(raw);
    }
    rows.push([label, value]);
  }
  return rows;
}

/** What a recording records; an API without streams sends none: the camera. */
const streamOf = (r: { stream?: StreamKind | undefined }): StreamKind => r.stream ?? 'camera';

/** Streams recorded the whole sitting long, shown side by side; room scans (short) follow below them. */
const CONTINUOUS_STREAMS: readonly StreamKind[] = ['camera', 'screen', 'phone'];

/**
 * Timelines of spec §2: one per recording, or one over the sitting when there is none yet. A marking lies on
 * every recording running at its time: on its own camera recording at the server's position, on the others
 * (the screen, the phone, a room scan) at its time since that recording began. A timeline is as long as its
 * stored video when that is known.
 */
function timelines(
  d: ExamineeDetail,
  urls: Record<number, string | null>,
  aiLabel: (mark: string) => string,
) {
  const all = [
    ...d.markings.map((m) => ({
      id: `m${m.id}`,
      kind: 'marking' as const,
      at: m.markingAt,
      recordId: m.recordId,
      playTime: m.playTimeFrom ?? null,
      label: m.message || m.label,
    })),
    ...d.aiMarkings.map((m) => ({
      id: `a${m.id}`,
      kind: 'ai' as const,
      at: m.markingAt,
      recordId: m.recordId,
      playTime: m.playTimeFrom ?? null,
      label: aiLabel(m.mark),
    })),
  ];
  if (d.records.length === 0) {
    const start = d.testAt ?? d.loginAt;
    const end = d.stopAt ?? d.logoutAt;
    const points: TimelinePoint[] = all.map((p) => ({
      id: p.id,
      kind: p.kind,
      label: p.label,
      offsetMs: Math.max(0, msBetween(start, p.at) || 0),
    }));
    return [{ key: 'sitting', url: null, durationMs: msBetween(start, end), points, recordId: null }];
  }
  const count: Partial<Record<StreamKind, number>> = {};
  return d.records.map((r) => {
    // The stored video's length once known: start to stop is when the upload was completed, which can be much
    // later than the video ends (uploads catching up, a recording completed by the server after its page went).
    const duration = r.durationMs ?? msBetween(r.startAt, r.stopAt);
    const stream = streamOf(r);
    const n = (count[stream] = (count[stream] ?? 0) + 1);
    const points: TimelinePoint[] = all
      .filter((p) => {
        if (p.recordId !== null && stream === 'camera') return p.recordId === r.id;
        const off = msBetween(r.startAt, p.at);
        return off >= 0 && (!Number.isFinite(duration) || off <= duration);
      })
      .map((p) => ({
        id: p.id,
        kind: p.kind,
        label: p.label,
        // The server's position in the recording when it gives one, else the time since the recording began.
        offsetMs:
          p.recordId === r.id && p.playTime !== null
            ? p.playTime * 1000
            : Math.max(0, msBetween(r.startAt, p.at)),
      }));
    return {
      key: `r${r.id}`,
      url: urls[r.id] ?? null,
      durationMs: duration,
      points,
      recordId: r.id,
      stream,
      n,
      // Completed with nothing stored (the page never sent a part): there is no video for this stretch.
      empty: r.size === 0 ? { from: r.startAt, to: r.stopAt } : null,
      // Its page went away while it recorded (a reload during a room scan or a screen share).
      interrupted: r.interrupted === true,
    };
  });
}

/**
 * How much of the exam has video: the camera recordings' lengths (the stored length when known, else start to
 * stop; empty ones count 0) against the exam from its first start (the examinee log's exam_start, or the first
 * camera recording if that came earlier) to the sitting's end (or now, while it runs). Not from the login: the
 * camera is recorded from the exam's start, and the identity check before it would read as missing video.
 */
function recordedSummary(d: ExamineeDetail): { recordedMs: number; sittingMs: number | null } {
  let recordedMs = 0;
  let start: string | null = null;
  const earlier = (at: string | null | undefined) => {
    if (at && (start === null || msBetween(at, start) > 0)) start = at;
  };
  for (const r of d.records) {
    if (streamOf(r) !== 'camera') continue;
    earlier(r.startAt);
    if (r.size === 0) continue;
    const len = r.durationMs ?? msBetween(r.startAt, r.stopAt);
    if (Number.isFinite(len) && len > 0) recordedMs += len;
  }
  earlier(d.examineeLogs.find((l) => l.event === 'exam_start')?.createdAt);
  start ??= d.loginAt ?? d.testAt;
  const sittingMs = start && d.stopAt ? msBetween(start, d.stopAt) : null;
  return { recordedMs, sittingMs: sittingMs !== null && Number.isFinite(sittingMs) ? sittingMs : null };
}

const hms = (ms: number) => {
  const s = Math.max(0, Math.round(ms / 1000));
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${pad(Math.floor(s / 3600))}:${pad(Math.floor((s % 3600) / 60))}:${pad(s % 60)}`;
};

type Timeline = ReturnType<typeof timelines>[number];

/** One recording's player and timeline (or the notice that nothing of it was stored). */
function TimelineItem({ tl }: { tl: Timeline }) {
  const { t } = useTranslation('examinees');
  const interrupted = 'interrupted' in tl && tl.interrupted;
  const base = 'n' in tl ? t('detail.recordingTitle', { n: tl.n }) : t('detail.sittingTimeline');
  const title = interrupted ? t('detail.recordingTitleInterrupted', { title: base }) : base;
  const note = interrupted ? (
    <p className="small text-body-secondary mb-1" data-testid="recording-interrupted">
      {t('detail.recordingInterrupted')}
    </p>
  ) : null;
  if ('empty' in tl && tl.empty) {
    return (
      <div className="mb-3" data-testid="recording-empty">
        <p className="fw-bold mb-1">{title}</p>
        {note}
        <p className="alert alert-warning mb-0">
          {t('detail.recordingEmpty')} (<DateTime value={tl.empty.from} /> – <DateTime value={tl.empty.to} />)
        </p>
      </div>
    );
  }
  return (
    <>
      <RecordingTimeline title={title} url={tl.url} durationMs={tl.durationMs} points={tl.points} />
      {note}
    </>
  );
}

/**
 * The sitting's recordings by stream (README "The wider view"): the camera, the screen and the phone side by
 * side, each with its recordings in order, and the room scans below them; a sitting with the camera alone shows
 * just its recordings.
 */
function RecordingTimelines({ lines }: { lines: Timeline[] }) {
  const text = useText();
  const streams = CONTINUOUS_STREAMS.filter((s) => lines.some((l) => 'stream' in l && l.stream === s));
  const scans = lines.filter((l) => 'stream' in l && l.stream === 'room_scan');
  if (streams.length <= 1 && scans.length === 0) {
    return (
      <>
        {lines.map((tl) => (
          <TimelineItem key={tl.key} tl={tl} />
        ))}
      </>
    );
  }
  const col = streams.length >= 3 ? 'col-xl-4' : streams.length === 2 ? 'col-xl-6' : '';
  return (
    <>
      <div className="row g-3">
        {streams.map((s) => (
          <section
            key={s}
            className={`col-12 ${col}`}
            aria-labelledby={`recordings-${s}`}
            data-testid={`recordings-${s}`}
          >
            <h3 id={`recordings-${s}`} className="h6">
              {text(`common:streams.${s}`)}
            </h3>
            {lines
              .filter((l) => 'stream' in l && l.stream === s)
              .map((tl) => (
                <TimelineItem key={tl.key} tl={tl} />
              ))}
          </section>
        ))}
      </div>
      {scans.length > 0 && (
        <section aria-labelledby="recordings-room_scan" data-testid="recordings-room_scan">
          <h3 id="recordings-room_scan" className="h6">
            {text('common:streams.room_scan')}
          </h3>
          <div className="row g-3">
            {scans.map((tl) => (
              <div key={tl.key} className="col-12 col-lg-6">
                <TimelineItem tl={tl} />
              </div>
            ))}
          </div>
        </section>
      )}
    </>
  );
}

/** Examinee detail of spec §2 (/examinees/{id}). */
export function ExamineeDetailView({
  testId,
  searchHref,
  reportHref,
}: {
  testId: number;
  searchHref: string;
  reportHref: string;
}) {
  const { t } = useTranslation('examinees');
  const text = useText();
  const dispatch = useAppDispatch();
  const detail = useAppSelector(selectExamineeDetail);
  const actor = useAppSelector(selectActor);
  useEffect(() => {
    void dispatch(detailOpened(testId));
  }, [dispatch, testId]);

  const back = (
    <Link to={searchHref} className="btn btn-outline-secondary btn-sm">
      {t('detail.backToSearch')}
    </Link>
  );
  if (detail.status === 'failed') {
    return (
      <>
        <AlertBox variant="danger" role="alert">
          <p className="mb-0 fw-bold">{text(detail.failure?.messageKey ?? 'examinees:detail.loadFailed')}</p>
          {detail.failure?.detailKey && <p className="mb-0">{text(detail.failure.detailKey)}</p>}
          {detail.failure?.messageText && <p className="mb-0">{detail.failure.messageText}</p>}
        </AlertBox>
        {back}
      </>
    );
  }
  const d = detail.data;
  if (!d || detail.testId !== testId) return <p role="status">{t('detail.loading')}</p>;
  const dash = (v: string | number | null | undefined) =>
    v === null || v === undefined || v === '' ? '-' : String(v);
  const aiLabel = (mark: string) => (isAiMark(mark) ? text(`examinees:ai.${mark}`) : mark);
  const settings = settingRows(d.startupParameters, text);
  const statusKey = testerStatusKey(d.status);
  const markerOrText = (message: string, kind: string) => {
    const m = markerText(message, kind);
    return m ? text(m.key, m.values) : message;
  };

  return (
    <div>
      <div className="mb-3 d-flex gap-2 flex-wrap">
        {back}
        <Link to={reportHref} className="btn btn-outline-primary btn-sm" data-testid="open-report">
          {t('report.open')}
        </Link>
      </div>
      <Section id="detail-info" title={t('detail.info')}>
        <Pairs
          rows={[
            [t('detail.loginId'), dash(d.loginId)],
            [t('detail.exLoginId'), dash(d.exLoginId)],
            [t('detail.examName'), dash(d.examName)],
            [t('detail.group'), d.group ? `${d.group}${d.groupCode ? ` (${d.groupCode})` : ''}` : '-'],
            [t('detail.status'), statusKey ? text(statusKey) : '-'],
            [t('detail.cheatingLevel'), text(cheatingLevelKey(d.cheatingLevel))],
            [t('detail.rejected'), d.rejected ? t('form.yes') : t('form.no')],
            [t('detail.kicked'), d.kicked ? t('form.yes') : t('form.no')],
            [t('detail.aiNamematch'), dash(d.aiNamematch)],
          ]}
        />
      </Section>
      <Section id="detail-photos" title={t('detail.photos')}>
        <div className="d-flex gap-3 flex-wrap">
          <figure>
            {d.headShotUri ? (
              <img src={d.headShotUri} alt={t('detail.headShot')} style={{ maxWidth: 240 }} />
            ) : (
              <p>{t('detail.noImage')}</p>
            )}
            <figcaption>{t('detail.headShot')}</figcaption>
          </figure>
          <figure>
            {d.idCardUri ? (
              <img src={d.idCardUri} alt={t('detail.idCard')} style={{ maxWidth: 240 }} />
            ) : (
              <p>{t('detail.noImage')}</p>
            )}
            <figcaption>{t('detail.idCard')}</figcaption>
          </figure>
        </div>
      </Section>
      {d.aiAuth && (
        <Section id="detail-ai-auth" title={t('detail.aiAuth.title')}>
          <AiAuthDecisions aiAuth={d.aiAuth} />
        </Section>
      )}
      <Section id="detail-settings" title={t('detail.settings')}>
        {settings.length === 0 ? <p>{t('detail.noSettings')}</p> : <Pairs rows={settings} />}
      </Section>
      <Section id="detail-test" title={t('detail.testInfo')}>
        <Pairs
          rows={[
            [t('columns.testName'), dash(d.testName)],
            [t('columns.region'), dash(d.region)],
            [t('columns.testAt'), <DateTime key="at" value={d.testAt} />],
            [t('detail.stopAt'), <DateTime key="stop" value={d.stopAt} />],
            [t('detail.testId'), d.testId],
          ]}
        />
      </Section>
      <Section id="detail-log" title={t('detail.examineeLog')}>
        {d.examineeLogs.length === 0 ? (
          <p>{t('detail.noLog')}</p>
        ) : (
          <Table size="sm" bordered>
            <caption>{t('detail.examineeLog')}</caption>
            <thead>
              <tr>
                <th scope="col">{t('detail.logAt')}</th>
                <th scope="col">{t('detail.logEvent')}</th>
              </tr>
            </thead>
            <tbody>
              {d.examineeLogs.map((l, i) => (
                <tr key={`${l.createdAt}-${i}`} data-testid="examinee-log">
                  <td className="text-nowrap">
                    <DateTime value={l.createdAt} />
                  </td>
                  <td>{text(examineeLogKey(l.event, l.detail))}</td>
                </tr>
              ))}
            </tbody>
          </Table>
        )}
      </Section>
      <Section id="detail-records" title={t('detail.recordLog')}>
        {d.records.length === 0 ? (
          <p>{t('detail.noRecords')}</p>
        ) : (
          <Table size="sm" bordered responsive>
            <caption>{t('detail.recordLog')}</caption>
            <thead>
              <tr>
                <th scope="col">{t('record.id')}</th>
                <th scope="col">{t('record.stream')}</th>
                <th scope="col">{t('record.startAt')}</th>
                <th scope="col">{t('record.stopAt')}</th>
                <th scope="col">{t('record.length')}</th>
                <th scope="col">{t('record.status')}</th>
                <th scope="col">{t('record.encodedAt')}</th>
                <th scope="col">{t('record.aiAnalysis')}</th>
              </tr>
            </thead>
            <tbody>
              {d.records.map((r) => (
                <tr key={r.id}>
                  <td>{r.id}</td>
                  <td>{text(`common:streams.${streamOf(r)}`)}</td>
                  <td>
                    <DateTime value={r.startAt} />
                  </td>
                  <td>
                    <DateTime value={r.stopAt} />
                  </td>
                  {/* The stored video's length: "completed" is when the upload was, not when the video ends. */}
                  <td>{r.durationMs === null || r.durationMs === undefined ? '—' : hms(r.durationMs)}</td>
                  <td>
                    {text(recordStatusKey(r.movieStatus))}
                    {r.interrupted === true && (
                      <span className="badge text-bg-warning ms-1">{t('record.interrupted')}</span>
                    )}
                  </td>
                  <td>
                    <DateTime value={r.encodedAt} />
                  </td>
                  <td>
                    {r.aiAnalysisFlag ? t('form.aiDone') : t('form.aiNotDone')} /{' '}
                    {r.aiAnalysisBatchFlag ? t('form.aiDone') : t('form.aiNotDone')}
                  </td>
                </tr>
              ))}
            </tbody>
          </Table>
        )}
        {d.recordStatusLogs.length > 0 && (
          <Table size="sm" bordered responsive>
            <caption>{t('detail.recordStatusLog')}</caption>
            <thead>
              <tr>
                <th scope="col">{t('detail.logAt')}</th>
                <th scope="col">{t('record.id')}</th>
                <th scope="col">{t('record.status')}</th>
              </tr>
            </thead>
            <tbody>
              {d.recordStatusLogs.map((l, i) => (
                <tr key={`${l.recordId}-${l.createdAt}-${i}`} data-testid="record-status-log">
                  <td className="text-nowrap">
                    <DateTime value={l.createdAt} />
                  </td>
                  <td>{l.recordId}</td>
                  <td>{text(recordStatusKey(l.movieStatus))}</td>
                </tr>
              ))}
            </tbody>
          </Table>
        )}
      </Section>
      <Section id="detail-messages" title={t('detail.messages')}>
        {d.messages.length === 0 ? (
          <p>{t('detail.noMessages')}</p>
        ) : (
          <ul className="list-unstyled">
            {d.messages.map((m) => (
              <li key={m.id}>
                <span className="text-body-secondary small me-2">
                  <DateTime value={m.createdAt} />
                </span>
                <span className="badge text-bg-light me-2">
                  {m.sendType === 0 ? t('detail.fromChecker') : t('detail.fromTester')}
                </span>
                {markerOrText(m.message, m.kind)}
              </li>
            ))}
          </ul>
        )}
      </Section>
      <Section id="detail-memo" title={t('detail.memo')}>
        <p className="text-break">{dash(d.startupParameters.memo)}</p>
      </Section>
      <Section id="detail-markings" title={t('detail.markings')}>
        <p>
          {t('detail.totalScore')}: <strong>{d.markingTotalScore}</strong>
        </p>
        <ul>
          {d.markingSummaries.map((s) => (
            <li key={s.mark}>{t('detail.summaryItem', { label: s.message || s.label, count: s.count })}</li>
          ))}
        </ul>
        <div className="d-flex flex-wrap gap-3">
          {d.markings.map((m) => (
            <figure key={m.id} className="border p-1" data-testid="marking">
              {m.url ? (
                <img
                  src={m.url}
                  alt={t('detail.markingImage', { label: m.message })}
                  style={{ width: 160 }}
                />
              ) : null}
              <figcaption className="small">
                <DateTime value={m.markingAt} /> {m.message || m.label} (
                {t('detail.score', { score: m.score })})
              </figcaption>
            </figure>
          ))}
        </div>
      </Section>
      <Section id="detail-ai-markings" title={t('detail.aiMarkings')}>
        <p>
          {t('detail.totalScore')}: <strong>{d.aiMarkingTotalScore}</strong>
        </p>
        <ul>
          {d.aiMarkingSummaries.map((s) => (
            <li key={s.mark}>{t('detail.summaryItem', { label: aiLabel(s.mark), count: s.count })}</li>
          ))}
        </ul>
        <div className="d-flex flex-wrap gap-3">
          {d.aiMarkings.map((m) => (
            <figure key={m.id} className="border p-1" data-testid="ai-marking">
              {m.url ? (
                <img
                  src={m.url}
                  alt={t('detail.markingImage', { label: aiLabel(m.mark) })}
                  style={{ width: 160 }}
                />
              ) : null}
              <figcaption className="small">
                <DateTime value={m.markingAt} /> {aiLabel(m.mark)} (
                {m.excused ? t('detail.excused') : t('detail.score', { score: m.score })})
              </figcaption>
            </figure>
          ))}
        </div>
      </Section>
      <Section id="detail-recordings" title={t('detail.recordings')}>
        {d.records.length > 0 && (
          <p data-testid="recorded-summary">
            {(() => {
              const sum = recordedSummary(d);
              return sum.sittingMs === null
                ? t('detail.recordedSummaryOpen', { recorded: hms(sum.recordedMs) })
                : t('detail.recordedSummary', { recorded: hms(sum.recordedMs), sitting: hms(sum.sittingMs) });
            })()}
          </p>
        )}
        <RecordingTimelines lines={timelines(d, detail.recordUrls, aiLabel)} />
      </Section>
      {/* spec §6: setting pass or fail is the managers'; a checker sees the detail without it. */}
      {actor !== null && MANAGER_ACTORS.includes(actor) && <PassFailSetting />}
      <div className="d-flex gap-3 align-items-center">
        {back}
        <a href="#page-title">{t('detail.toTop')}</a>
      </div>
    </div>
  );
}
