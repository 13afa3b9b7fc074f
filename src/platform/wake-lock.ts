/** Spec §4: the wake lock is released after a long fixed period (here 6 hours). */
export const WAKE_LOCK_MAX_MS = 6 * 60 * 60_000;

interface Sentinel {
  release(): Promise<void>;
}
interface WakeLockApi {
  request(type: 'screen'): Promise<Sentinel>;
}

/**
 * Keeps the screen awake (spec §4): requests a screen wake lock, requests it again whenever the page
 * becomes visible (the browser drops it on hide), and releases it after {@link WAKE_LOCK_MAX_MS}.
 *
 * @returns release: drops the lock and stops re-requesting.
 */
export function keepScreenAwake(maxMs: number = WAKE_LOCK_MAX_MS): () => void {
  const api = (navigator as Navigator & { wakeLock?: WakeLockApi }).wakeLock;
  if (!api) return () => undefined;
  let sentinel: Sentinel | null = null;
  let done = false;
  const request = () => {
    if (done || document.visibilityState !== 'visible') return;
    api
      .request('screen')
      .then((s) => {
        if (done) void s.release().catch(() => undefined);
        else sentinel = s;
      })
      .catch(() => undefined);
  };
  const onVisible = () => {
    if (document.visibilityState === 'visible') request();
  };
  document.addEventListener('visibilitychange', onVisible);
  request();
  const timer = setTimeout(() => release(), maxMs);
  function release() {
    if (done) return;
    done = true;
    clearTimeout(timer);
    document.removeEventListener('visibilitychange', onVisible);
    void sentinel?.release().catch(() => undefined);
    sentinel = null;
  }
  return release;
}
