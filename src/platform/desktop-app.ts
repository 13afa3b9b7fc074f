import type { RuntimeConfig } from '../lib/runtime-config';

/**
 * The desktop proctoring application of spec §1: it identifies itself by a fixed token in the user agent,
 * is required for the tester page, and exchanges messages with the page.
 *
 * Messages travel over `window.postMessage` on this window (the application's injected script listens and
 * posts on the same window) inside a fixed envelope, so unrelated messages (browser extensions, frames) are
 * ignored. The envelope's `direction` keeps the page from handling its own outgoing messages.
 */

/** The fixed `source` of every envelope. */
export const DESKTOP_APP_SOURCE = 'proctor-desktop-app';

/** Why a sitting ended, as the page tells the application. */
export type DesktopAppEndReason =
  'finished' | 'logout' | 'recordingTimeExceeded' | 'aiForcedLogout' | 'sessionEnded';

/**
 * The messages exchanged with the desktop application (README "Desktop proctoring application"). The page
 * tells the application when the exam starts and ends and when the examinee is kicked out (it may lock the desktop
 * down while the exam runs); the application tells the page it is closing, and the page answers closingReady
 * once it has told the checker and sent what it could.
 */
export type DesktopAppMessage =
  /** Page → app: the exam started (or a running exam was resumed in this window). */
  | { type: 'sittingStarted'; loginId: string; examName?: string }
  /** Page → app: the sitting ended for this window. */
  | { type: 'sittingEnded'; loginId: string; reason: DesktopAppEndReason }
  /** Page → app: a checker removed the examinee from the exam. */
  | { type: 'kickedOut'; loginId: string }
  /** Page → app: turn the lockdown on or off. */
  | { type: 'lockdownRequest'; enabled: boolean }
  /** App → page: the application is about to close (the examinee closes it, or the system shuts down). */
  | { type: 'closing' }
  /** Page → app: the page is ready for the application to close. */
  | { type: 'closingReady' }
  /** App → page (or page → app as a query): the application's state. */
  | { type: 'status'; status: string; detail?: string };

export type DesktopAppMessageType = DesktopAppMessage['type'];

const MESSAGE_TYPES: readonly DesktopAppMessageType[] = [
  'sittingStarted',
  'sittingEnded',
  'kickedOut',
  'lockdownRequest',
  'closing',
  'closingReady',
  'status',
];

/** The envelope on the wire. */
export interface DesktopAppEnvelope {
  source: typeof DESKTOP_APP_SOURCE;
  /** 'toApp' when the page sends, 'fromApp' when the application sends. */
  direction: 'toApp' | 'fromApp';
  message: DesktopAppMessage;
}

/** Whether this deployment requires the application and this browser is it (so messages are worth sending). */
export function desktopAppPresent(userAgent: string, desktopApp: RuntimeConfig['desktopApp']): boolean {
  return !!desktopApp && hasDesktopAppToken(userAgent, desktopApp.userAgentToken);
}

/** Whether the user agent carries the desktop application's token. */
export function hasDesktopAppToken(userAgent: string, token: string): boolean {
  return token !== '' && userAgent.includes(token);
}

/**
 * Spec §1: the URL of the desktop application's setup page when the tester page must send the user there
 * (the application is configured and the user agent lacks its token), else null.
 *
 * @param userAgent - `navigator.userAgent`.
 * @param desktopApp - RuntimeConfig.desktopApp (null when the deployment does not require the application).
 */
export function desktopAppSetupRedirect(
  userAgent: string,
  desktopApp: RuntimeConfig['desktopApp'],
): string | null {
  if (!desktopApp || !desktopApp.setupUrl) return null;
  return hasDesktopAppToken(userAgent, desktopApp.userAgentToken) ? null : desktopApp.setupUrl;
}

/** Whether `data` is a well-formed envelope. */
export function isDesktopAppEnvelope(data: unknown): data is DesktopAppEnvelope {
  if (!data || typeof data !== 'object') return false;
  const e = data as Partial<DesktopAppEnvelope>;
  if (e.source !== DESKTOP_APP_SOURCE || (e.direction !== 'toApp' && e.direction !== 'fromApp')) return false;
  const m = e.message as { type?: unknown } | undefined;
  return !!m && typeof m === 'object' && MESSAGE_TYPES.includes(m.type as DesktopAppMessageType);
}

/** The window messages go through; injectable for tests. */
export type MessageWindow = Pick<Window, 'postMessage' | 'addEventListener' | 'removeEventListener'> & {
  location: Pick<Location, 'origin'>;
};

/**
 * Sends a message to the desktop application. The target origin is this page's own origin, never '*', so
 * nothing leaves for another origin.
 */
export function postToDesktopApp(message: DesktopAppMessage, win: MessageWindow = window): void {
  const envelope: DesktopAppEnvelope = { source: DESKTOP_APP_SOURCE, direction: 'toApp', message };
  win.postMessage(envelope, win.location.origin);
}

/**
 * Listens for messages from the desktop application. Only envelopes from this page's origin (or one of
 * `allowedOrigins`) with direction 'fromApp' reach the handler.
 *
 * @returns a function that stops listening.
 */
export function onDesktopAppMessage(
  handler: (message: DesktopAppMessage) => void,
  opts: { allowedOrigins?: readonly string[]; win?: MessageWindow } = {},
): () => void {
  const win = opts.win ?? window;
  const origins = [win.location.origin, ...(opts.allowedOrigins ?? [])];
  const listener = (event: Event) => {
    const e = event as MessageEvent<unknown>;
    if (!origins.includes(e.origin)) return;
    if (!isDesktopAppEnvelope(e.data) || e.data.direction !== 'fromApp') return;
    handler(e.data.message);
  };
  win.addEventListener('message', listener);
  return () => win.removeEventListener('message', listener);
}
