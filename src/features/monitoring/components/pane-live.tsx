import { memo, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useAppSelector } from '../../../app/hooks';
import type { RootState } from '../../../app/store';
import type { LiveFlag } from '../../../api/capture';
import { parseServerTime } from '../../../lib/dates';
import { formatDateTime } from '../monitoring-format';
import { selectLiveClockOffset, selectPaneLive, type PaneLive } from '../monitoring-slice';

/** How far back the pane's timeline reaches (the feed sends this window's flags). */
export const TIMELINE_MINUTES = 10;
const TIMELINE_MS = TIMELINE_MINUTES * 60_000;

const timeOf = (v: string) => formatDateTime(v).slice(11);
const pct = (c: number) => Math.round(c * 100);

/** The newest flag of a pane (by start), or null. */
export function newestFlag(live: PaneLive | undefined): LiveFlag | null {
  if (!live?.flags.length) return null;
  return live.flags.reduce((a, b) => (parseServerTime(b.startedAt) >= parseServerTime(a.startedAt) ? b : a));
}

/**
 * The pane's AI flag count as a badge (text, colour and mark: not colour alone): red while a flag of the last
 * minutes is above the sitting's sensitivity, amber with flags, grey without.
 */
export const FlagBadge = memo(function FlagBadge({ testerId }: { testerId: number }) {
  const { t } = useTranslation('monitoring');
  const live = useAppSelector((s: RootState) => selectPaneLive(s, testerId));
  const count = live?.flagCount ?? 0;
  const excused = live?.excusedCount ?? 0;
  const alert = live?.flags.some((f) => f.alert) ?? false;
  const cls = alert ? 'text-bg-danger' : count > 0 ? 'text-bg-warning' : 'text-bg-secondary';
  const label = excused ? t('flagBadge.labelExcused', { count, excused }) : t('flagBadge.label', { count });
  return (
    <span
      className={`badge ${cls} pane-flag-badge`}
      data-testid="pane-flag-badge"
      data-count={count}
      data-alert={alert}
      title={label}
    >
      <span aria-hidden="true">{alert ? '\u26a0' : '\u2691'} </span>
      <span aria-hidden="true">{count}</span>
      <span className="visually-hidden">{label}</span>
    </span>
  );
});

/** The last TIMELINE_MINUTES as a thin bar with a mark per flag, and the same as a list for screen readers. */
function FlagTimeline({ flags, offsetMs }: { flags: LiveFlag[]; offsetMs: number }) {
  const { t } = useTranslation('monitoring');
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const id = setInterval(() => setNow(Date.now()), 5000);
    return () => clearInterval(id);
  }, []);
  const end = now + offsetMs;
  const start = end - TIMELINE_MS;
  const item = (f: LiveFlag) =>
    t(f.excused ? 'timeline.itemExcused' : 'timeline.item', {
      flag: t(`flags.${f.flag}`),
      time: timeOf(f.startedAt),
      confidence: pct(f.confidence),
    });
  return (
    <figure className="mb-0" data-testid="pane-timeline" data-flags={flags.length}>
      <figcaption className="visually-hidden">
        {t('timeline.label', { minutes: TIMELINE_MINUTES })}
      </figcaption>
      <div
        className="pane-timeline"
        aria-hidden="true"
        title={t('timeline.label', { minutes: TIMELINE_MINUTES })}
      >
        {flags.map((f) => {
          const a = Math.max(start, parseServerTime(f.startedAt));
          const b = Math.min(end, Math.max(a, parseServerTime(f.endedAt)));
          const left = ((a - start) / TIMELINE_MS) * 100;
          const width = Math.max(1.2, ((b - a) / TIMELINE_MS) * 100);
          const kind = f.excused ? 'excused' : f.alert ? 'alert' : 'flag';
          return (
            <span
              key={f.id}
              className={`pane-timeline-mark is-${kind}`}
              style={{ left: `${Math.min(left, 98.8)}%`, width: `${width}%` }}
              title={item(f)}
            />
          );
        })}
      </div>
      <div className="d-flex justify-content-between pane-timeline-scale" aria-hidden="true">
        <span>{t('timeline.start', { minutes: TIMELINE_MINUTES })}</span>
        <span>{t('timeline.now')}</span>
      </div>
      <ul className="visually-hidden">
        {flags.length === 0 && <li>{t('timeline.empty', { minutes: TIMELINE_MINUTES })}</li>}
        {flags.map((f) => (
          <li key={f.id}>{item(f)}</li>
        ))}
      </ul>
    </figure>
  );
}

/**
 * The pane's live stills: the timeline of the last minutes' AI flags, the newest still (when the sitting shows
 * stills on the monitor screen) and the newest flag with its still. Nothing when the sitting takes no stills.
 */
export const PaneLiveStills = memo(function PaneLiveStills({
  testerId,
  name,
  large = false,
}: {
  testerId: number;
  name: string;
  large?: boolean;
}) {
  const { t } = useTranslation('monitoring');
  const live = useAppSelector((s: RootState) => selectPaneLive(s, testerId));
  const offset = useAppSelector(selectLiveClockOffset);
  if (!live || live.captureInterval === 0) return null;
  const flag = newestFlag(live);
  const still = live.latestCapture;
  const size = large ? 'pane-still is-large' : 'pane-still';
  return (
    <section className="pane-live" data-testid="pane-live" aria-label={t('still.latest')}>
      {live.captureType !== 0 && <FlagTimeline flags={live.flags} offsetMs={offset} />}
      <div className="d-flex gap-1 align-items-start">
        <figure className="mb-0 pane-still-figure" data-testid="pane-latest-still">
          {!live.showStills ? (
            <span className="small text-body-secondary">{t('still.hidden')}</span>
          ) : still?.url ? (
            <img
              src={still.url}
              alt={t('still.alt', { name, time: timeOf(still.capturedAt) })}
              className={size}
              data-capture-id={still.id}
            />
          ) : (
            <span className="small text-body-secondary">{t('still.none')}</span>
          )}
          {live.showStills && still && (
            <figcaption className="pane-still-caption">{timeOf(still.capturedAt)}</figcaption>
          )}
        </figure>
        {flag && (
          <figure
            className={`mb-0 pane-still-figure ${flag.alert ? 'is-alert' : ''}`}
            data-testid="pane-flag-still"
            data-flag={flag.flag}
            data-excused={flag.excused}
          >
            {flag.imageUrl && (
              <img
                src={flag.imageUrl}
                alt={t('still.flagAlt', {
                  name,
                  flag: t(`flags.${flag.flag}`),
                  time: timeOf(flag.startedAt),
                })}
                className={size}
              />
            )}
            <figcaption className="pane-still-caption">
              {t('still.flagCaption', {
                flag: t(`flags.${flag.flag}`),
                time: timeOf(flag.startedAt),
                confidence: pct(flag.confidence),
              })}
              {flag.excused && <span className="badge text-bg-secondary ms-1">{t('still.excused')}</span>}
            </figcaption>
          </figure>
        )}
      </div>
    </section>
  );
});
