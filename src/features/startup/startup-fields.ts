/**
 * Start-up parameters of spec §3: every field with its type and default. Defaults in brackets in the spec
 * (lang ja, isAiAuth 1, isAiFaildManual 1, template ids -1) are kept; for the rest the spec shows none, so
 * numbers default to null ("not given") and texts to ''.
 */
export const STARTUP_FIELDS = {
  rawStartupUrl: { type: 'string', default: '' },
  inServer: { type: 'string', default: '' },
  target: { type: 'string', default: '' },
  actor: { type: 'number', default: null },
  lang: { type: 'string', default: 'ja' },
  isMobile: { type: 'number', default: null },
  isMcStartup: { type: 'number', default: null },
  isProctor: { type: 'number', default: null },
  isAuth: { type: 'number', default: null },
  examUrl: { type: 'string', default: '' },
  region: { type: 'string', default: '' },
  examName: { type: 'string', default: '' },
  examDatetime: { type: 'string', default: '' },
  isVoiceRecording: { type: 'number', default: null },
  isRecord: { type: 'number', default: null },
  isSummary: { type: 'number', default: null },
  selectedAnalysisTypes: { type: 'string', default: '' },
  maxRectime: { type: 'number', default: null },
  matchingTimeout: { type: 'number', default: null },
  testerRetry: { type: 'number', default: null },
  checkerRetry: { type: 'number', default: null },
  webrtcTimeout: { type: 'number', default: null },
  intervaltime: { type: 'number', default: null },
  webrtcMaxTime: { type: 'number', default: null },
  isDebug: { type: 'number', default: null },
  isConv: { type: 'number', default: null },
  videoRecordingPreference: { type: 'number', default: null },
  voiceQualityPreference: { type: 'number', default: null },
  passwordUrl: { type: 'string', default: '' },
  memo: { type: 'string', default: '' },
  isAiAuth: { type: 'number', default: 1 },
  isAiFaildManual: { type: 'number', default: 1 },
  isAiIdcardRequest: { type: 'number', default: null },
  aiFaceRetry: { type: 'number', default: null },
  aiIdcardRetry: { type: 'number', default: null },
  aiAllRetry: { type: 'number', default: null },
  aiIdcardType: { type: 'string', default: '' },
  aiNameMatch: { type: 'number', default: null },
  isForce: { type: 'number', default: null },
  eai: { type: 'string', default: '' },
  termSetCode: { type: 'string', default: '' },
  accessToken: { type: 'string', default: '' },
  examUserName: { type: 'string', default: '' },
  loginId: { type: 'string', default: '' },
  password: { type: 'string', default: '' },
  kicked: { type: 'number', default: null },
  group: { type: 'string', default: '' },
  groupId: { type: 'number', default: null },
  termTemplateId: { type: 'number', default: -1 },
  envSettingTerm: { type: 'number', default: -1 },
  termsOfServiceTemplate: { type: 'number', default: -1 },
  privacyPolicyTemplate: { type: 'number', default: -1 },
  inquiryTemplate: { type: 'number', default: -1 },
  videoCodec: { type: 'string', default: '' },
  /** Not in spec §3's list: the wider view's flags (contract/wider-view.ts). */
  isScreenRecord: { type: 'number', default: null },
  isRoomScan: { type: 'number', default: null },
  isPhoneCamera: { type: 'number', default: null },
  /** Not in spec §3's list: the short URL the start-up came through, sent at login (see contract/auth.ts). */
  urlKey: { type: 'string', default: '' },
} as const satisfies Record<
  string,
  { type: 'string'; default: string } | { type: 'number'; default: number | null }
>;

type Fields = typeof STARTUP_FIELDS;
export type StartupKey = keyof Fields;

/** The start-up parameters, camelCase, every field present. */
export type StartupParams = {
  [K in StartupKey]: Fields[K]['type'] extends 'number' ? number | null : string;
};

/** Snake_case names the server uses that do not follow the plain snake↔camel rule (spec §3). */
export const STARTUP_KEY_ALIASES: Record<string, StartupKey> = {
  ai_namematch: 'aiNameMatch',
  ai_name_match: 'aiNameMatch',
};

export function defaultStartupParams(): StartupParams {
  const out: Record<string, unknown> = {};
  for (const [k, f] of Object.entries(STARTUP_FIELDS)) out[k] = f.default;
  return out as StartupParams;
}
