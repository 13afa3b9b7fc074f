/**
 * English core namespaces (CORE_NAMESPACES in index.ts) as one chunk, loaded only when a page is in English:
 * Japanese pages need no English text.
 */
const EN_CORE = import.meta.glob<{ default: Record<string, unknown> }>(
  './locales/en/{common,errors,layout,login,alerting,pages,footer,templates}.json',
  { eager: true },
);

export default EN_CORE;
