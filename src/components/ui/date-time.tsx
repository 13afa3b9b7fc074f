import { displayTimeZone, formatDateTime, formatIso } from '../../lib/dates';

/**
 * A server time as the deployment's wall clock (`yyyy-MM-dd HH:mm:ss`, the zone in the tooltip), inside a
 * `<time>` whose `dateTime` carries the offset; `empty` (default '-') when there is none.
 */
export function DateTime({
  value,
  empty = '-',
}: {
  value: string | number | null | undefined;
  empty?: string;
}) {
  const text = formatDateTime(value);
  if (!text) return <>{empty}</>;
  return (
    <time dateTime={formatIso(value)} title={displayTimeZone()}>
      {text}
    </time>
  );
}
