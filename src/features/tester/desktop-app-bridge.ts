import { getRuntimeConfig } from '../../lib/runtime-config';
import {
  desktopAppPresent,
  onDesktopAppMessage,
  postToDesktopApp,
  type DesktopAppMessage,
} from '../../platform/desktop-app';

/**
 * The tester pages' side of the desktop proctoring application (spec §1; protocol in the README): messages go
 * out only when the deployment requires the application and this browser is it.
 */
function present(): boolean {
  return (
    typeof navigator !== 'undefined' && desktopAppPresent(navigator.userAgent, getRuntimeConfig().desktopApp)
  );
}

/** Sends a message to the application, when there is one. */
export function notifyDesktopApp(message: DesktopAppMessage): void {
  if (present()) postToDesktopApp(message);
}

let stop: (() => void) | null = null;

/**
 * Listens to the application while a tester page runs (once, however many pages start it); `onClosing` runs
 * when it announces that it closes. Returns false when there is no application.
 */
export function listenToDesktopApp(onClosing: () => void): boolean {
  if (!present()) return false;
  stop ??= onDesktopAppMessage((m) => {
    if (m.type === 'closing') onClosing();
  });
  return true;
}

/** Stops listening (logout, the end of the sitting in this window). */
export function stopListeningToDesktopApp(): void {
  stop?.();
  stop = null;
}
