import type { ViewerConnectionState } from '../../media/viewer';
import type { Pane, PaneConnection } from './monitoring-slice';

/** spec §4: the delayed deletion after BEFORE_CLOSE waits this many matching timeouts. */
export const BEFORE_CLOSE_DELAY_FACTOR = 4;

/** spec §4: signaling start-up is tried this many times, then the matching is deleted. */
export const VIEWER_START_ATTEMPTS = 3;

/** What the page does when a pane's viewer reaches a state (spec §4 "Viewer connection"). */
export type ViewerLossDecision =
  { kind: 'ignore' } | { kind: 'delete' } | { kind: 'deleteLater'; afterMs: number };

/** The pane connection a viewer state shows as. */
export function paneConnectionFor(state: ViewerConnectionState): PaneConnection {
  if (state === 'connected') return 'live';
  if (state === 'connecting') return 'connecting';
  return 'lost';
}

/**
 * spec §4: disconnected, failed or closed delete the matching; when the examinee announced BEFORE_CLOSE the
 * deletion waits 4 × matchingTimeout. Other states, or a pane that is gone or belongs to another matching,
 * change nothing.
 */
export function decideOnViewerState(
  pane: Pane | undefined,
  monitorId: number,
  state: ViewerConnectionState,
  matchingTimeoutSeconds: number,
): ViewerLossDecision {
  if (state !== 'disconnected' && state !== 'failed' && state !== 'closed') return { kind: 'ignore' };
  if (!pane || pane.monitorId !== monitorId) return { kind: 'ignore' };
  if (pane.beforeClose) {
    return { kind: 'deleteLater', afterMs: BEFORE_CLOSE_DELAY_FACTOR * matchingTimeoutSeconds * 1000 };
  }
  return { kind: 'delete' };
}

/** spec §4: a delayed deletion happens only if the same matching (monitor id) is still present. */
export function stillSameMatching(pane: Pane | undefined, monitorId: number): boolean {
  return pane !== undefined && pane.monitorId === monitorId;
}
