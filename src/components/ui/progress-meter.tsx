/**
 * A determinate progress bar in Bootstrap's markup with the role, value and accessible name on the same element
 * (react-bootstrap's ProgressBar puts a given aria-label on the wrapper and the role on the inner bar, which
 * leaves the progressbar without a name for screen readers).
 */
export function ProgressMeter({
  percent,
  label,
  variant,
  animated,
  className,
}: {
  /** 0–100. */
  percent: number;
  /** Accessible name: what is progressing. */
  label: string;
  variant?: 'danger' | 'success';
  animated?: boolean;
  className?: string;
}) {
  const now = Math.max(0, Math.min(100, Math.round(percent)));
  const bar = [
    'progress-bar',
    variant && `bg-${variant}`,
    animated && 'progress-bar-striped progress-bar-animated',
  ]
    .filter(Boolean)
    .join(' ');
  return (
    <div
      className={['progress', className].filter(Boolean).join(' ')}
      role="progressbar"
      aria-label={label}
      aria-valuenow={now}
      aria-valuemin={0}
      aria-valuemax={100}
      aria-valuetext={`${now}%`}
    >
      <div className={bar} style={{ width: `${now}%` }} />
    </div>
  );
}
