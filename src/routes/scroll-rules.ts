import { useEffect, useLayoutEffect, useRef } from 'react';
import { useLocation, useNavigationType } from 'react-router-dom';

/** sessionStorage key of the saved scroll positions (by history entry), kept across a reload. */
export const SCROLL_POSITIONS_KEY = 'scrollPositions';

function readSaved(): Record<string, number> {
  try {
    const v: unknown = JSON.parse(sessionStorage.getItem(SCROLL_POSITIONS_KEY) ?? '{}');
    return v && typeof v === 'object' ? (v as Record<string, number>) : {};
  } catch {
    return {};
  }
}

/**
 * Spec §2 scrolling: a navigation scrolls to the top, unless the route opts out (`keepScroll`); back and
 * forward restore the position the entry had; a #hash scrolls its target into view. Positions are kept per
 * history entry and saved when the page is hidden, so a reload restores them too. Runs in a layout effect,
 * after the new page rendered and before it paints.
 */
export function useScrollRules(keepScroll: boolean): void {
  const location = useLocation();
  const navType = useNavigationType();
  const lastY = useRef(0);
  const shownKey = useRef<string | null>(null);
  const positions = useRef<Record<string, number>>({});

  useEffect(() => {
    positions.current = { ...readSaved(), ...positions.current };
    const { scrollRestoration } = window.history;
    window.history.scrollRestoration = 'manual';
    const onScroll = () => {
      lastY.current = window.scrollY;
    };
    const onHide = () => {
      if (shownKey.current !== null) positions.current[shownKey.current] = lastY.current;
      try {
        sessionStorage.setItem(SCROLL_POSITIONS_KEY, JSON.stringify(positions.current));
      } catch {
        // Without storage, positions last only as long as this page.
      }
    };
    window.addEventListener('scroll', onScroll, { passive: true });
    window.addEventListener('pagehide', onHide);
    return () => {
      window.removeEventListener('scroll', onScroll);
      window.removeEventListener('pagehide', onHide);
      window.history.scrollRestoration = scrollRestoration;
    };
  }, []);

  useLayoutEffect(() => {
    if (shownKey.current !== null) positions.current[shownKey.current] = lastY.current;
    shownKey.current = location.key;
    const saved =
      navType === 'POP' ? (positions.current[location.key] ?? readSaved()[location.key]) : undefined;
    const target = location.hash ? document.getElementById(decodeURIComponent(location.hash.slice(1))) : null;
    if (saved !== undefined) window.scrollTo(0, saved);
    else if (target) target.scrollIntoView();
    else window.scrollTo(0, keepScroll ? lastY.current : 0);
    // Only on a new location.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [location.key]);
}
