/**
 * The views of one examinee's pane (README "The wider view"): the camera, and beside it the shared screen and
 * the paired phone when the sitting has them. A view is a remote stream from a signaling channel: the camera
 * and the screen come over the examinee's own channel (the screen on its second video track), the phone over
 * the sitting's phone channel. The viewer registry holds each view's stream under `viewKey`.
 */

/** Every view a pane can show, in the order the pane lists them. */
export const PANE_VIEWS = ['camera', 'screen', 'phone'] as const;
export type PaneViewId = (typeof PANE_VIEWS)[number];

/**
 * What a view shows now: `waiting` (nothing sent yet: not shared, not paired), `connecting`, `live` (frames
 * arrive), `stalled` (the camera: connected, but its frames stopped), `ended` (the examinee stopped it: the
 * share ended), `lost` (its connection is gone).
 */
export type PaneViewStatus = 'waiting' | 'connecting' | 'live' | 'stalled' | 'ended' | 'lost';

/** The extra views carried on the examinee's own channel after the camera (viewer.ts `extraViews`). */
export const CHANNEL_EXTRA_VIEWS: readonly PaneViewId[] = ['screen'];

/**
 * The viewer-registry key of a view: the camera keeps the pane's own key (the tester id, which the marking's
 * still and the sound use), the others `<tester id>:<view>`.
 */
export function viewKey(testerId: number, view: PaneViewId): string {
  return view === 'camera' ? String(testerId) : `${testerId}:${view}`;
}

/** The views a sitting offers: the camera, the screen with `is_screen_record`, the phone with `is_phone_camera`. */
export function viewsOf(wider: { screen: boolean; phone: boolean }): PaneViewId[] {
  return PANE_VIEWS.filter((v) => v === 'camera' || wider[v]);
}
