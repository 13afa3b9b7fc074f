/**
 * Navigation for code outside React (listeners, start-up): the router registers itself here once mounted
 * (app.tsx). Before that — the start-up checks run before the first render — a navigation changes the
 * history entry itself, which the router reads when it mounts. In tests without a router it falls back to
 * location.assign.
 */
type Navigate = (to: string, opts?: { replace?: boolean }) => void;

let navigateImpl: Navigate | null = null;

export function setNavigator(fn: Navigate | null): void {
  navigateImpl = fn;
}

export function navigateTo(to: string, opts?: { replace?: boolean }): void {
  if (navigateImpl) navigateImpl(to, opts);
  else if (opts?.replace) window.location.replace(to);
  else window.location.assign(to);
}

/** A navigation before the router mounts: the history entry changes, the page does not reload. */
export function navigateBeforeRender(to: string, opts?: { replace?: boolean }): void {
  if (opts?.replace) window.history.replaceState(null, '', to);
  else window.history.pushState(null, '', to);
}
