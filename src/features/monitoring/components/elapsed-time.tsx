import { useEffect, useState } from 'react';
import { formatElapsed } from '../monitoring-format';

/**
 * hh:mm:ss since `since`, ticking once a second in this small component only, so the pane around it does not
 * re-render every second.
 */
export function ElapsedTime({ since }: { since: number | null }) {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (since === null) return;
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, [since]);
  return <span className="font-monospace">{formatElapsed(since, since === null ? 0 : now)}</span>;
}
