/** The size of the probe window of spec §2 start-up check 4. */
export const POPUP_PROBE_SIZE = 100;

/**
 * Spec §2 start-up check 4: tries to open a 100 × 100 popup and closes it at once.
 *
 * @param win - the window to open it from (injectable for tests).
 * @returns false when the popup was blocked (no window came back, or it came back already closed, which is
 *   how some popup blockers answer).
 */
export function checkPopupAllowed(win: Pick<Window, 'open'> = window): boolean {
  let popup: Window | null;
  try {
    popup = win.open('about:blank', '_blank', `width=${POPUP_PROBE_SIZE},height=${POPUP_PROBE_SIZE}`);
  } catch {
    return false;
  }
  if (!popup || popup.closed) return false;
  try {
    popup.close();
  } catch {
    // Closing is best effort; the popup was allowed, which is what the check asks.
  }
  return true;
}
