/**
 * The window name given to the child window. It survives navigations and reloads inside that window, so a
 * start-up running in the child can tell it is already there and must not open another one.
 */
export const CHILD_WINDOW_NAME = 'proctor-exam-child';

/** Whether this window is the child window opened by {@link openChildWindow}. */
export function isChildWindow(win: Pick<Window, 'name'> = window): boolean {
  return win.name === CHILD_WINDOW_NAME;
}

/**
 * Spec §2 start-up check 6 (actor 1 with isMcStartup 0): opens `url` in a new child window of the full
 * available screen size, then closes the current window.
 *
 * The current window can only be closed when a script opened it; otherwise the browser ignores `close()`,
 * so callers should still show something sensible (e.g. the close page) afterwards.
 *
 * @param url - the URL (or same-origin path) to open.
 * @param win - the current window (injectable for tests).
 * @returns false when the child window was blocked (the current window then stays open).
 */
export function openChildWindow(
  url: string,
  win: Pick<Window, 'open' | 'close' | 'screen'> = window,
): boolean {
  const { availWidth, availHeight } = win.screen;
  let child: Window | null;
  try {
    child = win.open(url, CHILD_WINDOW_NAME, `left=0,top=0,width=${availWidth},height=${availHeight}`);
  } catch {
    return false;
  }
  if (!child) return false;
  win.close();
  return true;
}
