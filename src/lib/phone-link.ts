/**
 * The phone camera's link: `<origin>/phone?lang=<ja|en>#<pairing code>`. The code rides in the fragment, which browsers never
 * send to a server (no request line, access log or Referer carries it); the phone's page takes it out of the
 * address bar and the history entry before anything else runs (app/early-scrub.ts) and spends it once.
 */

/** The path of the phone camera's page. */
export const PHONE_PAGE_PATH = '/phone';

/** The link the examinee's page shows as a QR code; the phone's page opens in the examinee's language. */
export function phoneLinkUrl(origin: string, code: string, lang: string): string {
  return `${origin}${PHONE_PAGE_PATH}?lang=${lang === 'en' ? 'en' : 'ja'}#${encodeURIComponent(code)}`;
}

let pendingCode: string | null = null;

/**
 * On the phone's page: removes the pairing code from the address (history.replaceState) and keeps it for
 * {@link takePairingCode}. Any other page is left as it is.
 */
export function scrubPairingCode(
  location: Pick<Location, 'pathname' | 'hash' | 'href'>,
  history: Pick<History, 'replaceState' | 'state'>,
): void {
  const path = location.pathname.replace(/\/+$/, '');
  if (path !== PHONE_PAGE_PATH || location.hash.length < 2) return;
  let code: string;
  try {
    code = decodeURIComponent(location.hash.slice(1));
  } catch {
    code = '';
  }
  pendingCode = /^[A-Za-z0-9_-]{20,200}$/.test(code) ? code : null;
  try {
    history.replaceState(history.state, '', location.href.slice(0, location.href.indexOf('#')));
  } catch {
    // A sandboxed document may refuse; the code is spent once anyway.
  }
}

/** The pairing code the page was opened with, once (null after the first call, or when there was none). */
export function takePairingCode(): string | null {
  const c = pendingCode;
  pendingCode = null;
  return c;
}
