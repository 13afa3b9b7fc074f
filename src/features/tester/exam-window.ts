/**
 * The exam-system window opened from /examining. A Window is not serializable, so it is held here, outside
 * Redux; the store only knows whether the examinee logged in to the exam system.
 */
let examWindow: Window | null = null;
let unloadGuard: ((e: BeforeUnloadEvent) => void) | null = null;

/** Name of the exam window (reused, so a second open replaces the first). */
export const EXAM_WINDOW_NAME = 'proctor-exam-system';

/**
 * Set in the tab's sessionStorage while an exam window this tab opened may be open: a reloaded page has no
 * handle on the window its earlier page opened, and must still be able to close it (a share lost in the reload
 * holds the exam; the exam ends; a kick-out).
 */
export const EXAM_WINDOW_OPENED_KEY = 'proctor-exam-window-opened';

function rememberOpened(opened: boolean): void {
  try {
    if (opened) sessionStorage.setItem(EXAM_WINDOW_OPENED_KEY, '1');
    else sessionStorage.removeItem(EXAM_WINDOW_OPENED_KEY);
  } catch {
    // Storage unavailable: only this page's own window can be closed.
  }
}

/**
 * The exam window an earlier page of this tab opened (before a reload), reached again by its name, or null. When
 * it is gone, naming it opens a blank window instead, which is closed at once.
 */
function earlierPagesWindow(): Window | null {
  try {
    if (sessionStorage.getItem(EXAM_WINDOW_OPENED_KEY) !== '1') return null;
  } catch {
    return null;
  }
  const w = window.open('', EXAM_WINDOW_NAME);
  if (!w) return null;
  try {
    if (w.location.href === 'about:blank') {
      w.close();
      return null;
    }
  } catch {
    // Cross-origin: the exam system's page.
  }
  return w;
}

/** Opens `url` in the exam window; returns false when a popup blocker stopped it. */
export function openExamWindow(url: string): boolean {
  const w = window.open(url, EXAM_WINDOW_NAME);
  if (!w) return false;
  examWindow = w;
  rememberOpened(true);
  return true;
}

/** Whether the exam window was opened and has been closed since. */
export function examWindowClosed(): boolean {
  return examWindow !== null && examWindow.closed;
}

/** Whether an exam window is open now. */
export function examWindowOpen(): boolean {
  return examWindow !== null && !examWindow.closed;
}

/**
 * Closes the exam window (window cleanup on exit and kick-out, the exam held for a lost screen share), also the
 * one an earlier page of this tab opened before a reload.
 */
export function closeExamWindow(): void {
  try {
    (examWindow ?? earlierPagesWindow())?.close();
  } catch {
    // Cross-origin or already closed: nothing else to do.
  }
  examWindow = null;
  rememberOpened(false);
}

/** Spec §4: warn before unloading while examining. */
export function startUnloadWarning(): void {
  if (unloadGuard) return;
  unloadGuard = (e: BeforeUnloadEvent) => {
    e.preventDefault();
    e.returnValue = '';
  };
  window.addEventListener('beforeunload', unloadGuard);
}

/** Stops the unload warning (spec §4 exit order: before pre-close handlers and navigation). */
export function stopUnloadWarning(): void {
  if (!unloadGuard) return;
  window.removeEventListener('beforeunload', unloadGuard);
  unloadGuard = null;
}
