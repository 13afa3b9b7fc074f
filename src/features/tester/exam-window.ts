/**
 * The exam-system window opened from /examining. A Window is not serializable, so it is held here, outside
 * Redux; the store only knows whether the examinee logged in to the exam system.
 */
let examWindow: Window | null = null;
let unloadGuard: ((e: BeforeUnloadEvent) => void) | null = null;

/** Name of the exam window (reused, so a second open replaces the first). */
export const EXAM_WINDOW_NAME = 'proctor-exam-system';

/** Opens `url` in the exam window; returns false when a popup blocker stopped it. */
export function openExamWindow(url: string): boolean {
  const w = window.open(url, EXAM_WINDOW_NAME);
  if (!w) return false;
  examWindow = w;
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

/** Closes the exam window (window cleanup on exit and kick-out). */
export function closeExamWindow(): void {
  try {
    examWindow?.close();
  } catch {
    // Cross-origin or already closed: nothing else to do.
  }
  examWindow = null;
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
