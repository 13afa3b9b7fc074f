import { describe, expect, it } from 'vitest';
import { ALL_ACTORS as ACTORS } from '@contract/constants/common';
import {
  FIRST_PAGE,
  OPEN_PAGES,
  PAGE_ACCESS,
  assertActor,
  decideAccess,
  type Actor,
  type PageId,
} from './permissions';
import { paths } from '@/config/paths';

const ALL_PAGES = Object.keys(paths) as PageId[];

/** Spec §6 written out by hand, so the data and this table must agree. */
const EXPECTED: Record<Actor, PageId[]> = {
  1: ['envSetting', 'identification', 'identificationAi', 'examining', 'examEnd'],
  // The printable report goes with the detail it is printed from.
  2: ['monitoring', 'examineeDetail', 'examineeReport'],
  3: ['examinees', 'examineeDetail', 'examineeReport'],
  4: [
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
    // Linked from the spec's manager menu, and §6 names them manager abilities.
    'createShorturl',
    'createShorturlList',
    'analysisRequest',
    'editTerms',
    // Accounts and groups: system managers only.
    'accounts',
  ],
  5: [
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
    // Linked from the spec's manager menu, and §6 names them manager abilities.
    'createShorturl',
    'createShorturlList',
    'analysisRequest',
    'editTerms',
  ],
};
// The open pages of spec §6, and the phone camera's page (opened from a QR code without a login).
const OPEN: PageId[] = [
  'login',
  'redirect',
  'iframe',
  'alerting',
  'terms',
  'privacy',
  'inquiry',
  'close',
  'phone',
];

describe('permission table (spec §6): 5 actors × every page', () => {
  for (const actor of ACTORS) {
    for (const page of ALL_PAGES) {
      const expected = OPEN.includes(page) || EXPECTED[actor].includes(page) ? 'allow' : 'forbidden';
      it(`actor ${actor} → ${page}: ${expected}`, () => {
        expect(decideAccess(page, actor)).toBe(expected);
      });
    }
  }
  for (const page of ALL_PAGES) {
    const expected = OPEN.includes(page) ? 'allow' : 'login';
    it(`not logged in → ${page}: ${expected}`, () => {
      expect(decideAccess(page, null)).toBe(expected);
    });
  }
});

describe('first pages and open pages', () => {
  it('sends each actor to the first page of spec §2', () => {
    expect(paths[FIRST_PAGE[1]].path).toBe('/env-setting');
    expect(paths[FIRST_PAGE[2]].path).toBe('/monitoring');
    expect(paths[FIRST_PAGE[3]].path).toBe('/examinees');
    expect(paths[FIRST_PAGE[4]].path).toBe('/management');
    expect(paths[FIRST_PAGE[5]].path).toBe('/management');
  });
  it('first pages are allowed to their actor', () => {
    for (const a of ACTORS) expect(PAGE_ACCESS[a]).toContain(FIRST_PAGE[a]);
  });
  it('lists the open pages of spec §6', () => {
    expect([...OPEN_PAGES].sort()).toEqual([...OPEN].sort());
  });
  it('the page no actor may open stays closed (examinee login)', () => {
    for (const a of ACTORS) expect(decideAccess('examineeLogin', a)).toBe('forbidden');
  });
  it('only actors 4 and 5 (managers) open analysis-request, the short-URL pages and edit-terms', () => {
    for (const page of ['analysisRequest', 'createShorturl', 'createShorturlList', 'editTerms'] as const) {
      for (const a of ACTORS) expect(decideAccess(page, a)).toBe(a >= 4 ? 'allow' : 'forbidden');
    }
  });
  it("rejects an actor outside the five with 'undefined actor specified'", () => {
    expect(() => assertActor(6)).toThrow('undefined actor specified');
    expect(() => assertActor('1')).toThrow('undefined actor specified');
    expect(assertActor(3)).toBe(3);
  });
});

describe('management pages carry body id PRE00007', () => {
  it('every admin page', () => {
    for (const p of EXPECTED[4]) expect(paths[p].bodyId).toBe('PRE00007');
  });
});
