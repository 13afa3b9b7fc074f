import { useRef } from 'react';
import { useTranslation } from 'react-i18next';

/** A point on the timeline: a marking or an AI marking at `offsetMs` from the start. */
export interface TimelinePoint {
  id: string;
  kind: 'marking' | 'ai';
  offsetMs: number;
  label: string;
}

function clock(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  const hh = String(Math.floor(s / 3600)).padStart(2, '0');
  const mm = String(Math.floor((s % 3600) / 60)).padStart(2, '0');
  const ss = String(s % 60).padStart(2, '0');
  return `${hh}:${mm}:${ss}`;
}

/**
 * A recording (when `url` is set) above a bar holding every marking and AI marking at its time; a click
 * on a point jumps the player there. Without a playable recording the bar still shows the points.
 */
export function RecordingTimeline({
  title,
  url,
  durationMs,
  points,
}: {
  title: string;
  url: string | null;
  durationMs: number;
  points: TimelinePoint[];
}) {
  const { t } = useTranslation('examinees');
  const video = useRef<HTMLVideoElement>(null);
  const span =
    Number.isFinite(durationMs) && durationMs > 0
      ? durationMs
      : Math.max(1, ...points.map((p) => p.offsetMs + 1000));
  const seek = (ms: number) => {
    const v = video.current;
    if (!v) return;
    v.currentTime = ms / 1000;
    void v.play().catch(() => undefined);
  };
  return (
    <figure className="mb-3" data-testid="recording-timeline">
      <figcaption className="fw-bold">{title}</figcaption>
      {url ? (
        <video
          ref={video}
          controls
          preload="metadata"
          src={url}
          className="w-100 bg-dark"
          style={{ maxHeight: 360 }}
        >
          <track kind="captions" />
        </video>
      ) : (
        <p className="text-body-secondary small mb-1">{t('detail.noPlayback')}</p>
      )}
      <div
        className="position-relative bg-body-secondary rounded my-2"
        style={{ height: 28 }}
        role="group"
        aria-label={t('detail.timeline')}
      >
        {points.map((p) => (
          <button
            key={p.id}
            type="button"
            className={`position-absolute top-0 btn btn-sm p-0 border-0 ${p.kind === 'ai' ? 'bg-warning' : 'bg-danger'}`}
            style={{ left: `calc(${Math.min(100, (p.offsetMs / span) * 100)}% - 4px)`, width: 8, height: 28 }}
            disabled={!url}
            data-kind={p.kind}
            aria-label={t('detail.jumpTo', { label: p.label, time: clock(p.offsetMs) })}
            title={`${p.label} ${clock(p.offsetMs)}`}
            onClick={() => seek(p.offsetMs)}
          />
        ))}
      </div>
      <div className="d-flex justify-content-between small text-body-secondary">
        <span>{clock(0)}</span>
        <span>{clock(span)}</span>
      </div>
    </figure>
  );
}
