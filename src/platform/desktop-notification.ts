/**
 * Desktop notifications (the Notification API) for the checker's console: the permission is asked only from
 * a click (browsers ignore or block a prompt without one), and a notification is shown only while the
 * console's tab is hidden — on screen the console itself alerts.
 */

/** The browser's answer so far; 'unsupported' when it has no Notification API (or it is not allowed here). */
export type NotificationPermissionState = 'default' | 'granted' | 'denied' | 'unsupported';

interface NotificationCtor {
  readonly permission: 'default' | 'granted' | 'denied';
  requestPermission(): Promise<'default' | 'granted' | 'denied'>;
  new (
    title: string,
    options?: { body?: string; tag?: string; renotify?: boolean },
  ): {
    onclick: ((this: unknown, ev: Event) => unknown) | null;
    close(): void;
  };
}

function api(w: unknown = globalThis): NotificationCtor | null {
  const n = (w as { Notification?: NotificationCtor }).Notification;
  return typeof n === 'function' ? n : null;
}

/** What the browser says now. */
export function notificationPermission(w?: unknown): NotificationPermissionState {
  const n = api(w);
  return n ? n.permission : 'unsupported';
}

/** Asks for the permission; call it from a click handler. */
export async function askNotificationPermission(w?: unknown): Promise<NotificationPermissionState> {
  const n = api(w);
  if (!n) return 'unsupported';
  try {
    return await n.requestPermission();
  } catch {
    return n.permission;
  }
}

/** Whether the page is hidden (another tab or a minimised window). */
export function pageHidden(d: { visibilityState?: string } | undefined = globalThis.document): boolean {
  return d?.visibilityState === 'hidden';
}

/**
 * Shows a desktop notification when the permission was granted; `tag` replaces an earlier one with the same
 * tag; a click brings the console's window to the front and calls `onClick`. False when nothing was shown.
 */
export function showDesktopNotification(
  n: { title: string; body: string; tag: string; onClick?: () => void },
  w?: unknown,
): boolean {
  const N = api(w);
  if (!N || N.permission !== 'granted') return false;
  try {
    const shown = new N(n.title, { body: n.body, tag: n.tag, renotify: true });
    shown.onclick = () => {
      globalThis.focus?.();
      n.onClick?.();
      shown.close();
    };
    return true;
  } catch {
    return false;
  }
}
