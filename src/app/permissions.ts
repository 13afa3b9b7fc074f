import { ACTOR, ALL_ACTORS, type Actor } from '@contract/constants/common';
import type { PageId } from '@/config/paths';

export type { Actor, PageId };

export function isActor(v: unknown): v is Actor {
  return typeof v === 'number' && (ALL_ACTORS as readonly number[]).includes(v);
}

/** Open to everyone, logged in or not (spec §6). */
export const OPEN_PAGES: readonly PageId[] = [
  'login',
  'redirect',
  'iframe',
  'alerting',
  'terms',
  'privacy',
  'inquiry',
  'close',
  // The examinee's phone as a second camera: opened from a QR code without a login (its pairing code is the
  // credential, and its session can do only the phone's job).
  'phone',
];

const ADMIN_PAGES: readonly PageId[] = [
  'management',
  'examinees',
  'examineeDetail',
  'examineeReport',
  'checkersMonitoring',
  'accessLimit',
  'logview',
  'deleteSetting',
  'deletePlan',
  'logins',
  // Not in §6's page lists, but the spec's manager menu links them and §6 names them manager abilities.
  'createShorturl',
  'createShorturlList',
  'analysisRequest',
  'editTerms',
];

/**
 * Spec §6 as data: the pages each actor may open besides the open pages. The print-ready report of an
 * examinee (`/examinees/{id}/report`) goes with the detail page it is printed from, to the same actors. `/examinees/{id}/login` is in no
 * actor's list in the spec, so no one may open it; the short-URL pages, `/analysis-request` and `/edit-terms`
 * are open to actors 4 and 5: the spec's manager menu links them and §6 names them manager abilities.
 */
export const PAGE_ACCESS: Record<Actor, readonly PageId[]> = {
  [ACTOR.tester]: ['envSetting', 'identification', 'identificationAi', 'examining', 'examEnd'],
  [ACTOR.checker]: ['monitoring', 'examineeDetail', 'examineeReport'],
  [ACTOR.testManager]: ['examinees', 'examineeDetail', 'examineeReport'],
  // Accounts and groups are managed by system managers only (not supervisors): who may create a system manager
  // must be one.
  [ACTOR.systemManager]: [...ADMIN_PAGES, 'accounts'],
  [ACTOR.supervisor]: ADMIN_PAGES,
};

/** First page of each actor (spec §2 start-up checks, step 6). */
export const FIRST_PAGE: Record<Actor, PageId> = {
  [ACTOR.tester]: 'envSetting',
  [ACTOR.checker]: 'monitoring',
  [ACTOR.testManager]: 'examinees',
  [ACTOR.systemManager]: 'management',
  [ACTOR.supervisor]: 'management',
};

export type AccessDecision = 'allow' | 'login' | 'forbidden';

/** Whether `actor` (null when not logged in) may open `page`. Pure: the router guard and tests use it. */
export function decideAccess(page: PageId, actor: Actor | null): AccessDecision {
  if (OPEN_PAGES.includes(page)) return 'allow';
  if (actor === null) return 'login';
  return PAGE_ACCESS[actor].includes(page) ? 'allow' : 'forbidden';
}

export function canAccess(page: PageId, actor: Actor | null): boolean {
  return decideAccess(page, actor) === 'allow';
}

/** Spec §6: "An actor outside the five causes an error ('undefined actor specified')". */
export class UndefinedActorError extends Error {
  constructor(value: unknown) {
    super(`undefined actor specified: ${String(value)}`);
    this.name = 'UndefinedActorError';
  }
}

export function assertActor(v: unknown): Actor {
  if (!isActor(v)) throw new UndefinedActorError(v);
  return v;
}
