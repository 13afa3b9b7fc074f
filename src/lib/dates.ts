const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/**
 * Local time as `yyyy-MM-dd HH:mm:ss` (spec §3 "Log entry" timestamp). Written out so the entry chunk does not
 * carry a date library for one format.
 */
export function formatLocalDateTime(d: Date): string {
  return (
    `${pad(d.getFullYear(), 4)}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ` +
    `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`
  );
}
