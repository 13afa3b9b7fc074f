import {
  checkEnvironment,
  toComparableVersion,
  BROWSER_CHECK_ALERTING_ID,
  type BrowserCheckCode,
} from './browser-check';
import type { AllowedEnvironment } from '../lib/runtime-config';

// Real user-agent shapes, with the version numbers varied around each limit of spec §5.
const winChrome = (nt: string, v: string) =>
  `Mozilla/5.0 (Windows NT ${nt}; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${v} Safari/537.36`;
const winEdge = (nt: string, v: string) =>
  `Mozilla/5.0 (Windows NT ${nt}; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${v} Safari/537.36 Edg/${v}`;
const winFirefox = (v: string) =>
  `Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:${v}) Gecko/20100101 Firefox/${v}`;
const macSafari = (os: string, v: string) =>
  `Mozilla/5.0 (Macintosh; Intel Mac OS X ${os}) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/${v} Safari/605.1.15`;
const macChrome = (os: string, v: string) =>
  `Mozilla/5.0 (Macintosh; Intel Mac OS X ${os}) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${v} Safari/537.36`;
const androidChrome = (os: string, v: string) =>
  `Mozilla/5.0 (Linux; Android ${os}; SM-G960F) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${v} Mobile Safari/537.36`;
const androidWebView = (os: string, v: string) =>
  `Mozilla/5.0 (Linux; Android ${os}; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/${v} Mobile Safari/537.36`;
const iosSafari = (os: string, v: string) =>
  `Mozilla/5.0 (iPhone; CPU iPhone OS ${os} like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/${v} Mobile/15E148 Safari/604.1`;
const iosChrome = (os: string, v: string) =>
  `Mozilla/5.0 (iPhone; CPU iPhone OS ${os} like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/${v} Mobile/15E148 Safari/604.1`;
const ipadSafari = (os: string, v: string) =>
  `Mozilla/5.0 (iPad; CPU OS ${os} like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/${v} Mobile/15E148 Safari/604.1`;
const ipadChrome = (os: string, v: string) =>
  `Mozilla/5.0 (iPad; CPU OS ${os} like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/${v} Mobile/15E148 Safari/604.1`;
const linuxChrome = (v: string) =>
  `Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${v} Safari/537.36`;
const linuxHeadless = (v: string) =>
  `Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/${v} Safari/537.36`;
const ubuntuChromium = (v: string) =>
  `Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Ubuntu Chromium/${v} Chrome/${v} Safari/537.36`;
const linuxFirefox = (v: string) => `Mozilla/5.0 (X11; Linux x86_64; rv:${v}) Gecko/20100101 Firefox/${v}`;

const DEMO_LINUX: AllowedEnvironment[] = [
  { os: 'Linux', browser: 'Chrome', minOs: 0, minBrowser: 80 },
  { os: 'Linux', browser: 'Chromium', minOs: 0, minBrowser: 80 },
];

interface Row {
  name: string;
  ua: string;
  touch?: number;
  extra?: AllowedEnvironment[];
  code: BrowserCheckCode;
  os?: string;
}

const rows: Row[] = [
  // Windows / Chrome 10 / 80 (Windows 11 sends "NT 10.0" too, so there is no "above" OS case to write).
  {
    name: 'Win/Chrome: OS 10, Chrome 80 (limits)',
    ua: winChrome('10.0', '80.0.3987.149'),
    code: 0,
    os: 'Windows',
  },
  { name: 'Win/Chrome: OS 8.1 (NT 6.3) below 10', ua: winChrome('6.3', '80.0.3987.149'), code: 12 },
  { name: 'Win/Chrome: OS 7 below 10', ua: winChrome('6.1', '120.0.0.0'), code: 12 },
  { name: 'Win/Chrome: OS XP (non-numeric) below 10', ua: winChrome('5.1', '120.0.0.0'), code: 12 },
  { name: 'Win/Chrome: Chrome 79 below 80', ua: winChrome('10.0', '79.0.3945.130'), code: 14 },
  { name: 'Win/Chrome: Chrome 81 above 80', ua: winChrome('10.0', '81.0.4044.138'), code: 0 },
  // Windows / Edge 10 / 80
  { name: 'Win/Edge: OS 10, Edge 80 (limits)', ua: winEdge('10.0', '80.0.361.69'), code: 0 },
  { name: 'Win/Edge: OS 8.1 below 10', ua: winEdge('6.3', '80.0.361.69'), code: 12 },
  { name: 'Win/Edge: Edge 79 below 80', ua: winEdge('10.0', '79.0.309.71'), code: 14 },
  { name: 'Win/Edge: Edge 81 above 80', ua: winEdge('10.0', '81.0.416.53'), code: 0 },
  {
    name: 'Win/Edge: legacy EdgeHTML 18 below 80',
    ua: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/70.0.3538.102 Safari/537.36 Edge/18.19582',
    code: 14,
  },
  // Mac / Safari 10.157 / 14.03, with the special rule
  {
    name: 'Mac/Safari: OS 10.157, Safari 14.03 (limits)',
    ua: macSafari('10_15_7', '14.0.3'),
    code: 0,
    os: 'Mac',
  },
  { name: 'Mac/Safari: OS 10.158 above', ua: macSafari('10_15_8', '14.0.3'), code: 0 },
  { name: 'Mac/Safari: OS 10.155 below', ua: macSafari('10_15_5', '14.0.3'), code: 12 },
  { name: 'Mac/Safari: OS 10.146 below', ua: macSafari('10_14_6', '14.1'), code: 12 },
  { name: 'Mac/Safari: Safari 14.02 below on 10.157', ua: macSafari('10_15_7', '14.0.2'), code: 14 },
  { name: 'Mac/Safari: Safari 14.1 above', ua: macSafari('10_15_7', '14.1'), code: 0 },
  {
    name: 'Mac/Safari special: 10.156 with Safari 14.03 accepted',
    ua: macSafari('10_15_6', '14.0.3'),
    code: 0,
  },
  { name: 'Mac/Safari special: 10.156 with Safari 14.1 accepted', ua: macSafari('10_15_6', '14.1'), code: 0 },
  {
    name: 'Mac/Safari special: 10.156 with Safari 14.02 → OS rejected',
    ua: macSafari('10_15_6', '14.0.2'),
    code: 12,
  },
  { name: 'Mac/Safari special: 11.0 rejected', ua: macSafari('11_0', '14.0.3'), code: 12 },
  { name: 'Mac/Safari special: 11.01 rejected', ua: macSafari('11_0_1', '14.0.3'), code: 12 },
  { name: 'Mac/Safari special: 11.02 accepted', ua: macSafari('11_0_2', '14.0.3'), code: 0 },
  { name: 'Mac/Safari special: 11.1 accepted', ua: macSafari('11_1', '14.1'), code: 0 },
  {
    name: 'Mac/Safari special: 11.02 with Safari 14.02 → browser rejected',
    ua: macSafari('11_0_2', '14.0.2'),
    code: 14,
  },
  { name: 'Mac/Safari: macOS 14.3 / Safari 17.3', ua: macSafari('14_3', '17.3'), code: 0 },
  // Mac / Chrome 10.146 / 80
  { name: 'Mac/Chrome: OS 10.146, Chrome 80 (limits)', ua: macChrome('10_14_6', '80.0.3987.149'), code: 0 },
  { name: 'Mac/Chrome: OS 10.145 below', ua: macChrome('10_14_5', '80.0.3987.149'), code: 12 },
  { name: 'Mac/Chrome: OS 10.147 above', ua: macChrome('10_14_7', '80.0.3987.149'), code: 0 },
  { name: 'Mac/Chrome: Chrome 79 below', ua: macChrome('10_15_7', '79.0.3945.130'), code: 14 },
  { name: 'Mac/Chrome: Chrome 81 above', ua: macChrome('10_15_7', '81.0.4044.138'), code: 0 },
  // Android / Chrome 8 / 80
  {
    name: 'Android/Chrome: OS 8, Chrome 80 (limits)',
    ua: androidChrome('8.0.0', '80.0.3987.149'),
    code: 0,
    os: 'Android',
  },
  { name: 'Android/Chrome: OS 7.12 below', ua: androidChrome('7.1.2', '80.0.3987.149'), code: 12 },
  { name: 'Android/Chrome: OS 8.1 above', ua: androidChrome('8.1.0', '80.0.3987.149'), code: 0 },
  { name: 'Android/Chrome: Chrome 79 below', ua: androidChrome('10', '79.0.3945.136'), code: 14 },
  { name: 'Android/Chrome: Chrome 81 above', ua: androidChrome('10', '81.0.4044.138'), code: 0 },
  {
    name: 'Android/Chrome WebView is not a listed browser',
    ua: androidWebView('10', '80.0.3987.149'),
    code: 13,
  },
  // iOS / Safari 14.3 / 11
  { name: 'iOS/Safari: OS 14.3, Safari 11 (limits)', ua: iosSafari('14_3', '11.0'), code: 0, os: 'iOS' },
  { name: 'iOS/Safari: OS 14.2 below', ua: iosSafari('14_2', '14.0.1'), code: 12 },
  { name: 'iOS/Safari: OS 14.4 above', ua: iosSafari('14_4', '14.0.3'), code: 0 },
  { name: 'iOS/Safari: Safari 10.3 below', ua: iosSafari('14_3', '10.3'), code: 14 },
  { name: 'iOS/Safari: Safari 11.1 above', ua: iosSafari('14_3', '11.1'), code: 0 },
  // iOS / Chrome 13 / 80
  { name: 'iOS/Chrome: OS 13, Chrome 80 (limits)', ua: iosChrome('13_0', '80.0.3987.95'), code: 0 },
  { name: 'iOS/Chrome: OS 12.4 below', ua: iosChrome('12_4', '80.0.3987.95'), code: 12 },
  { name: 'iOS/Chrome: OS 13.1 above', ua: iosChrome('13_1', '80.0.3987.95'), code: 0 },
  { name: 'iOS/Chrome: Chrome 79 below', ua: iosChrome('13_0', '79.0.3945.73'), code: 14 },
  { name: 'iOS/Chrome: Chrome 81 above', ua: iosChrome('13_0', '81.0.4044.62'), code: 0 },
  // iPadOS / Safari 14.3 / 11 (an "iPad" UA)
  {
    name: 'iPadOS/Safari: OS 14.3, Safari 11 (limits)',
    ua: ipadSafari('14_3', '11.0'),
    code: 0,
    os: 'iPadOS',
  },
  { name: 'iPadOS/Safari: OS 14.2 below', ua: ipadSafari('14_2', '14.0'), code: 12 },
  { name: 'iPadOS/Safari: OS 14.4 above', ua: ipadSafari('14_4', '14.0'), code: 0 },
  { name: 'iPadOS/Safari: Safari 10.3 below', ua: ipadSafari('14_3', '10.3'), code: 14 },
  { name: 'iPadOS/Safari: Safari 11.1 above', ua: ipadSafari('14_3', '11.1'), code: 0 },
  // iPadOS / Chrome 13 / 80
  {
    name: 'iPadOS/Chrome: OS 13, Chrome 80 (limits)',
    ua: ipadChrome('13_0', '80.0.3987.95'),
    code: 0,
    os: 'iPadOS',
  },
  { name: 'iPadOS/Chrome: OS 12.4 below', ua: ipadChrome('12_4', '80.0.3987.95'), code: 12 },
  { name: 'iPadOS/Chrome: OS 13.1 above', ua: ipadChrome('13_1', '80.0.3987.95'), code: 0 },
  { name: 'iPadOS/Chrome: Chrome 79 below', ua: ipadChrome('13_0', '79.0.3945.73'), code: 14 },
  { name: 'iPadOS/Chrome: Chrome 81 above', ua: ipadChrome('13_0', '81.0.4044.62'), code: 0 },
  // iPadOS by touch: a Mac Safari UA with maxTouchPoints > 1; its Safari version stands in for the OS version.
  { name: 'iPadOS by touch: Safari 17.3', ua: macSafari('10_15_7', '17.3'), touch: 5, code: 0, os: 'iPadOS' },
  {
    name: 'iPadOS by touch: Safari 14.03 (< 14.3) → OS version',
    ua: macSafari('10_15_7', '14.0.3'),
    touch: 5,
    code: 12,
  },
  {
    name: 'Mac Safari with 1 touch point stays Mac',
    ua: macSafari('10_15_7', '17.3'),
    touch: 1,
    code: 0,
    os: 'Mac',
  },
  {
    name: 'Mac Chrome with touch stays Mac',
    ua: macChrome('10_15_7', '120.0.0.0'),
    touch: 5,
    code: 0,
    os: 'Mac',
  },
  // Unknown OS / browser, and the extra rows of the runtime config
  { name: 'Linux Chrome without extra rows → OS', ua: linuxChrome('120.0.0.0'), code: 11, os: 'Linux' },
  { name: 'Linux Chrome with the demo row', ua: linuxChrome('120.0.0.0'), extra: DEMO_LINUX, code: 0 },
  {
    name: 'Linux HeadlessChrome counts as Chrome',
    ua: linuxHeadless('131.0.6778.33'),
    extra: DEMO_LINUX,
    code: 0,
  },
  {
    name: 'Linux Chrome 79 with the demo row → browser version',
    ua: linuxChrome('79.0.3945.130'),
    extra: DEMO_LINUX,
    code: 14,
  },
  {
    name: 'Ubuntu Chromium with the demo row',
    ua: ubuntuChromium('80.0.3987.149'),
    extra: DEMO_LINUX,
    code: 0,
  },
  {
    name: 'Linux Firefox with the demo row → browser',
    ua: linuxFirefox('120.0'),
    extra: DEMO_LINUX,
    code: 13,
  },
  { name: 'Windows Firefox → browser', ua: winFirefox('120.0'), code: 13 },
  {
    name: 'Mac Edge → browser (not listed for Mac)',
    ua: `${macChrome('10_15_7', '120.0.0.0')} Edg/120.0.2210.91`,
    code: 13,
  },
  { name: 'Empty UA → OS', ua: '', code: 11 },
];

describe('checkEnvironment (spec §5 minimum environments)', () => {
  it.each(rows)('$name → $code', ({ ua, touch, extra, code, os }) => {
    const r = checkEnvironment({ userAgent: ua, maxTouchPoints: touch ?? 0 }, extra ?? []);
    expect(r.code).toBe(code);
    if (os) expect(r.os).toBe(os);
  });

  it('reports Windows NT 6.3 as version 8.1', () => {
    const r = checkEnvironment({ userAgent: winChrome('6.3', '80.0.3987.149'), maxTouchPoints: 0 }, []);
    expect(r).toMatchObject({ os: 'Windows', osVersion: 8.1, browser: 'Chrome', code: 12 });
  });

  it('an extra row can only widen the table', () => {
    const strict: AllowedEnvironment[] = [{ os: 'Windows', browser: 'Chrome', minOs: 99, minBrowser: 999 }];
    expect(
      checkEnvironment({ userAgent: winChrome('10.0', '80.0.3987.149'), maxTouchPoints: 0 }, strict).code,
    ).toBe(0);
  });

  it('maps every failure code to its alerting page', () => {
    expect(BROWSER_CHECK_ALERTING_ID).toEqual({
      11: 'excluded-os',
      12: 'excluded-os-version',
      13: 'excluded-browser',
      14: 'excluded-browser-version',
    });
  });
});

describe('toComparableVersion', () => {
  it.each([
    ['10.15.7', 10.157],
    ['14.0.3', 14.03],
    ['80.0.3987', 80.03987],
    ['80.0.3987.149', 80.03987149],
    ['10', 10],
    ['8.1', 8.1],
    ['', 0],
    [undefined, 0],
    ['XP', 0],
  ])('%s → %s', (v, n) => {
    expect(toComparableVersion(v)).toBe(n);
  });
});
