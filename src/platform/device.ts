import { UAParser } from 'ua-parser-js';

/**
 * Whether the browser runs on a PC (spec §2 start-up check 5 applies only there): not a phone, tablet or
 * other non-desktop device according to the user agent. An iPad in desktop mode reports a Mac user agent;
 * it is recognised by touch support (spec §5), so pass `navigator.maxTouchPoints` when known.
 *
 * @param userAgent - `navigator.userAgent`.
 * @param maxTouchPoints - `navigator.maxTouchPoints` (0 when unknown).
 */
export function isPC(userAgent: string, maxTouchPoints = 0): boolean {
  const r = new UAParser(userAgent).getResult();
  // ua-parser leaves device.type undefined for desktops; any type (mobile, tablet, smarttv, console,
  // wearable, embedded) is not a PC.
  if (r.device.type) return false;
  const os = r.os.name ?? '';
  if (os === 'Android' || os === 'iOS' || os === 'iPadOS') return false;
  if (os === 'Mac OS' && maxTouchPoints > 1) return false;
  return true;
}
