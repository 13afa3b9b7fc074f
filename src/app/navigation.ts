/**
 * Navigation for code outside React (listeners, start-up): the router registers itself here.
 * Until it does (or in tests without a router), navigation falls back to location.assign.
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
