/** Page identifiers of spec §2: every routed page has one. */
export type PageId =
  | 'login'
  | 'redirect'
  | 'iframe'
  | 'alerting'
  | 'terms'
  | 'privacy'
  | 'inquiry'
  | 'close'
  | 'envSetting'
  | 'identification'
  | 'identificationAi'
  | 'examining'
  | 'examEnd'
  | 'monitoring'
  | 'management'
  | 'examinees'
  | 'examineeDetail'
  | 'examineeReport'
  | 'examineeLogin'
  | 'checkersMonitoring'
  | 'accessLimit'
  | 'logview'
  | 'deleteSetting'
  | 'deletePlan'
  | 'logins'
  | 'createShorturl'
  | 'createShorturlList'
  | 'analysisRequest'
  | 'editTerms'
  | 'accounts'
  | 'phone';

/** Every route once (spec §2): its pattern, its page id, its body id, and an href builder. */
export interface RouteDef {
  path: string;
  page: PageId;
  bodyId: `PRE0000${1 | 2 | 3 | 4 | 5 | 6 | 7}` | null;
  /** Keep the scroll position on navigation (spec §2: "unless a route opts out"). */
  keepScroll?: boolean;
}

export const paths = {
  login: { path: '/login', page: 'login', bodyId: 'PRE00001' },
  redirect: { path: '/redirect', page: 'redirect', bodyId: null },
  iframe: { path: '/iframe', page: 'iframe', bodyId: null },
  alerting: { path: '/alerting/:id?', page: 'alerting', bodyId: null },
  terms: { path: '/terms', page: 'terms', bodyId: null },
  privacy: { path: '/privacy', page: 'privacy', bodyId: null },
  inquiry: { path: '/inquiry', page: 'inquiry', bodyId: null },
  close: { path: '/close', page: 'close', bodyId: null },
  envSetting: { path: '/env-setting', page: 'envSetting', bodyId: 'PRE00002' },
  identification: { path: '/identification', page: 'identification', bodyId: 'PRE00003' },
  identificationAi: { path: '/identification-ai', page: 'identificationAi', bodyId: 'PRE00003' },
  examining: { path: '/examining', page: 'examining', bodyId: 'PRE00004' },
  examEnd: { path: '/exam-end', page: 'examEnd', bodyId: 'PRE00005' },
  monitoring: { path: '/monitoring', page: 'monitoring', bodyId: 'PRE00006' },
  management: { path: '/management', page: 'management', bodyId: 'PRE00007' },
  examinees: { path: '/examinees', page: 'examinees', bodyId: 'PRE00007' },
  examineeDetail: { path: '/examinees/:id', page: 'examineeDetail', bodyId: 'PRE00007' },
  examineeReport: { path: '/examinees/:id/report', page: 'examineeReport', bodyId: 'PRE00007' },
  examineeLogin: { path: '/examinees/:id/login', page: 'examineeLogin', bodyId: 'PRE00007' },
  checkersMonitoring: { path: '/checkers/monitoring', page: 'checkersMonitoring', bodyId: 'PRE00007' },
  accessLimit: { path: '/access-limit', page: 'accessLimit', bodyId: 'PRE00007' },
  logview: { path: '/logview', page: 'logview', bodyId: 'PRE00007' },
  deleteSetting: { path: '/delete-setting', page: 'deleteSetting', bodyId: 'PRE00007' },
  deletePlan: { path: '/delete-plan', page: 'deletePlan', bodyId: 'PRE00007' },
  logins: { path: '/logins', page: 'logins', bodyId: 'PRE00007' },
  createShorturl: { path: '/create-shorturl/:id?', page: 'createShorturl', bodyId: 'PRE00007' },
  createShorturlList: { path: '/create-shorturl-List', page: 'createShorturlList', bodyId: 'PRE00007' },
  analysisRequest: { path: '/analysis-request', page: 'analysisRequest', bodyId: 'PRE00007' },
  editTerms: { path: '/edit-terms', page: 'editTerms', bodyId: 'PRE00007' },
  accounts: { path: '/accounts', page: 'accounts', bodyId: 'PRE00007' },
  phone: { path: '/phone', page: 'phone', bodyId: null },
} as const satisfies Record<PageId, RouteDef>;

/** href of a page; `params` fill `:name` segments (optional ones may be left out). */
export function href(page: PageId, params: Record<string, string | number> = {}): string {
  const pattern: string = paths[page].path;
  const out = pattern
    .split('/')
    .map((seg) => {
      if (!seg.startsWith(':')) return seg;
      const optional = seg.endsWith('?');
      const name = seg.slice(1, optional ? -1 : undefined);
      const v = params[name];
      if (v === undefined) {
        if (optional) return null;
        throw new Error(`href(${page}): missing param ${name}`);
      }
      return encodeURIComponent(String(v));
    })
    .filter((s) => s !== null)
    .join('/');
  return out || '/';
}

export const SYSTEM_ERROR_PATH = '/alerting/system-error';
