import { UAParser } from 'ua-parser-js';
import type { AllowedEnvironment } from '../lib/runtime-config';

/** Browser check codes of spec §5. */
export const BROWSER_CHECK = {
  ok: 0,
  unsupportedOs: 11,
  unsupportedOsVersion: 12,
  unsupportedBrowser: 13,
  unsupportedBrowserVersion: 14,
} as const;

export type BrowserCheckCode = (typeof BROWSER_CHECK)[keyof typeof BROWSER_CHECK];
export type BrowserCheckFailure = Exclude<BrowserCheckCode, 0>;

/** The alerting page id (`/alerting/{id}`) for each failure code (spec §2 start-up checks, step 3). */
export const BROWSER_CHECK_ALERTING_ID: Record<BrowserCheckFailure, string> = {
  11: 'excluded-os',
  12: 'excluded-os-version',
  13: 'excluded-browser',
  14: 'excluded-browser-version',
};

/** What the check reads from the browser: `navigator.userAgent` and `navigator.maxTouchPoints`. */
export interface BrowserEnvInput {
  userAgent: string;
  maxTouchPoints: number;
}

/**
 * The outcome of {@link checkEnvironment}. `os` and `browser` are the normalised names the table uses
 * (e.g. 'Mac', 'iPadOS', 'Safari'), or ua-parser's own name when it is not one of them ('' when unknown);
 * the versions are the compared numbers (see {@link toComparableVersion}).
 */
export interface BrowserCheckResult {
  code: BrowserCheckCode;
  os: string;
  osVersion: number;
  browser: string;
  browserVersion: number;
}

/** The minimum-environment table of spec §5 (OS, browser, min OS version, min browser version). */
export const MINIMUM_ENVIRONMENTS: readonly AllowedEnvironment[] = [
  { os: 'Windows', browser: 'Chrome', minOs: 10, minBrowser: 80 },
  { os: 'Windows', browser: 'Edge', minOs: 10, minBrowser: 80 },
  { os: 'Mac', browser: 'Safari', minOs: 10.157, minBrowser: 14.03 },
  { os: 'Mac', browser: 'Chrome', minOs: 10.146, minBrowser: 80 },
  { os: 'Android', browser: 'Chrome', minOs: 8, minBrowser: 80 },
  { os: 'iOS', browser: 'Safari', minOs: 14.3, minBrowser: 11 },
  { os: 'iOS', browser: 'Chrome', minOs: 13, minBrowser: 80 },
  { os: 'iPadOS', browser: 'Safari', minOs: 14.3, minBrowser: 11 },
  { os: 'iPadOS', browser: 'Chrome', minOs: 13, minBrowser: 80 },
];

// ua-parser-js 1.x OS names → table names. Linux distributions are folded into 'Linux' so that an extra
// row such as {os: 'Linux'} also covers e.g. "Ubuntu Chromium".
const OS_NAMES: Record<string, string> = {
  Windows: 'Windows',
  'Mac OS': 'Mac',
  macOS: 'Mac',
  Android: 'Android',
  iOS: 'iOS',
  iPadOS: 'iPadOS',
  Linux: 'Linux',
  Ubuntu: 'Linux',
  Debian: 'Linux',
  Fedora: 'Linux',
  Mint: 'Linux',
  Arch: 'Linux',
  CentOS: 'Linux',
  'Red Hat': 'Linux',
  SUSE: 'Linux',
  Gentoo: 'Linux',
};

// ua-parser-js 1.x browser names → table names. 'Mobile Safari' is Safari on iOS; 'Chrome Headless' is the
// same engine and version as Chrome (automation, e2e). 'Chrome WebView' (an Android app's embedded view) is
// deliberately not mapped: spec §5 lists browsers, and an embedded view is not one, so it gets code 13.
// On iOS, Chrome ('CriOS') is already reported as 'Chrome' by ua-parser.
const BROWSER_NAMES: Record<string, string> = {
  Chrome: 'Chrome',
  'Chrome Headless': 'Chrome',
  Edge: 'Edge',
  Safari: 'Safari',
  'Mobile Safari': 'Safari',
  Chromium: 'Chromium',
};

/**
 * A version string as a comparable number, spec §5 style: the major part, then every later part's digits
 * concatenated after the decimal point ("10.15.7" → 10.157, "14.0.3" → 14.03, "80.0.3987" → 80.03987).
 * Missing or non-numeric versions (e.g. Windows "XP", Linux without a version) give 0.
 */
export function toComparableVersion(version: string | undefined): number {
  if (!version) return 0;
  const [major = '', ...rest] = version.split('.');
  if (!/^\d+$/.test(major)) return 0;
  const minor = rest.map((p) => p.replace(/\D/g, '')).join('');
  const n = Number(minor ? `${major}.${minor}` : major);
  return Number.isFinite(n) ? n : 0;
}

// spec §5: "Windows NT 6.3 counts as 8.1". ua-parser 1.x already reports NT 6.3 as '8.1'; this also covers a
// raw "NT x.y" version should a parser ever hand one through.
const WINDOWS_NT: Record<string, string> = { 'NT 6.1': '7', 'NT 6.2': '8', 'NT 6.3': '8.1', 'NT 10.0': '10' };

interface Detected {
  os: string;
  osVersion: number;
  browser: string;
  browserVersion: number;
}

function detect(input: BrowserEnvInput): Detected {
  const r = new UAParser(input.userAgent).getResult();
  const rawOs = r.os.name ?? '';
  const rawBrowser = r.browser.name ?? '';
  let os = OS_NAMES[rawOs] ?? rawOs;
  const browser = BROWSER_NAMES[rawBrowser] ?? rawBrowser;
  let osVersionText = r.os.version;
  if (os === 'Windows' && osVersionText) osVersionText = WINDOWS_NT[osVersionText] ?? osVersionText;
  const browserVersion = toComparableVersion(r.browser.version);
  let osVersion = toComparableVersion(osVersionText);
  // spec §5: "A Mac Safari with touch support is treated as iPadOS". An iPad in desktop mode sends a frozen
  // "Mac OS X 10_15_x" version, which says nothing about iPadOS, so its Safari version stands in for the OS
  // version (Safari's major and minor follow iPadOS's since iPadOS 13).
  if (os === 'Mac' && browser === 'Safari' && input.maxTouchPoints > 1) {
    os = 'iPadOS';
    osVersion = browserVersion;
  }
  // An iPad UA that still says "iPad" (iOS 12 and older, or "request mobile website") is iPadOS too.
  if (os === 'iOS' && r.device.type === 'tablet') os = 'iPadOS';
  return { os, osVersion, browser, browserVersion };
}

function sameName(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}

// spec §5 Mac Safari special rule, in the spec's order: 10.156 is accepted with Safari ≥ 14.03; otherwise the
// OS is rejected below 10.157 or from 11 up to below 11.02; then the browser is rejected below 14.03.
function checkMacSafari(d: Detected): BrowserCheckCode {
  if (d.osVersion === 10.156 && d.browserVersion >= 14.03) return BROWSER_CHECK.ok;
  if (d.osVersion < 10.157 || (d.osVersion >= 11 && d.osVersion < 11.02))
    return BROWSER_CHECK.unsupportedOsVersion;
  if (d.browserVersion < 14.03) return BROWSER_CHECK.unsupportedBrowserVersion;
  return BROWSER_CHECK.ok;
}

function checkRow(d: Detected, row: AllowedEnvironment, fromTable: boolean): BrowserCheckCode {
  if (fromTable && row.os === 'Mac' && row.browser === 'Safari') return checkMacSafari(d);
  if (d.osVersion < row.minOs) return BROWSER_CHECK.unsupportedOsVersion;
  if (d.browserVersion < row.minBrowser) return BROWSER_CHECK.unsupportedBrowserVersion;
  return BROWSER_CHECK.ok;
}

/**
 * The browser/OS check of spec §5 (start-up check 3 of spec §2). Pure: it only parses the given user agent.
 *
 * Order: the OS must appear in the table (else 11), then the browser must appear for that OS (else 13), then
 * the OS version must reach that row's minimum (else 12), then the browser version (else 14). The OS minimum
 * depends on the browser row (Mac: Safari 10.157, Chrome 10.146), which is why the browser name is looked up
 * before the OS version is compared. When several rows match (an extra row repeating a table row), any row
 * that passes is enough; otherwise the first row's code is returned.
 *
 * @param input - `navigator.userAgent` and `navigator.maxTouchPoints`.
 * @param extraRows - deployment-specific allowed rows (RuntimeConfig.extraAllowedEnvironments). Their names
 *   are compared case-insensitively with the normalised names ('Windows', 'Mac', 'Android', 'iOS', 'iPadOS',
 *   'Linux'; 'Chrome', 'Edge', 'Safari', 'Chromium'; any other name as ua-parser-js reports it).
 */
export function checkEnvironment(
  input: BrowserEnvInput,
  extraRows: readonly AllowedEnvironment[] = [],
): BrowserCheckResult {
  const d = detect(input);
  const rows: { row: AllowedEnvironment; fromTable: boolean }[] = [
    ...MINIMUM_ENVIRONMENTS.map((row) => ({ row, fromTable: true })),
    ...extraRows.map((row) => ({ row, fromTable: false })),
  ];
  const result = (code: BrowserCheckCode): BrowserCheckResult => ({ code, ...d });
  const osRows = rows.filter((r) => d.os !== '' && sameName(r.row.os, d.os));
  if (osRows.length === 0) return result(BROWSER_CHECK.unsupportedOs);
  const browserRows = osRows.filter((r) => d.browser !== '' && sameName(r.row.browser, d.browser));
  if (browserRows.length === 0) return result(BROWSER_CHECK.unsupportedBrowser);
  const codes = browserRows.map((r) => checkRow(d, r.row, r.fromTable));
  return result(
    codes.includes(BROWSER_CHECK.ok) ? BROWSER_CHECK.ok : (codes[0] ?? BROWSER_CHECK.unsupportedBrowser),
  );
}
