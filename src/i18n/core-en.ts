/**
 * English texts, loaded only when a page is in English (Japanese pages need no English text): the core
 * namespaces (CORE_NAMESPACES in index.ts) in this chunk, and the index of the English feature texts, one
 * chunk per text unit as the Japanese ones (index.ts).
 */
const EN_CORE = import.meta.glob<{ default: Record<string, unknown> }>(
  './locales/en/{common,errors,layout,login,alerting,pages,footer,templates}.json',
  { eager: true },
);

export const EN_TEXTS = import.meta.glob<{ default: Record<string, unknown> }>([
  './locales/en/*.json',
  './locales/en/*/*.json',
  '!./locales/en/{common,errors,layout,login,alerting,pages,footer,templates}.json',
]);

export default EN_CORE;
