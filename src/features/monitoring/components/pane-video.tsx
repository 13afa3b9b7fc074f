import { useEffect, useRef, useSyncExternalStore } from 'react';
import { useAppDispatch } from '../../../app/hooks';
import { attachVideo, detachVideo, getStream, subscribeStream } from '../../../media/viewer-registry';
import { paneMutedChanged } from '../monitoring-slice';
import { viewKey, type PaneViewId } from '../pane-views';

export interface PaneVideoProps {
  testerId: number;
  /** Which of the pane's views (pane-views.ts); the camera by default. */
  view?: PaneViewId;
  /** The camera's sound; the other views have none and stay muted. */
  muted: boolean;
  label: string;
}

/**
 * One live view of an examinee (the camera, the shared screen, the phone). The <video> element is rendered
 * once and never remounted; its srcObject is set in an effect from the registry (jitsi habit: media is
 * "blackboxed from React").
 */
export function PaneVideo({ testerId, view = 'camera', muted, label }: PaneVideoProps) {
  const ref = useRef<HTMLVideoElement>(null);
  const dispatch = useAppDispatch();
  const key = viewKey(testerId, view);
  const silent = view !== 'camera' || muted;
  const stream = useSyncExternalStore(
    (fn) => subscribeStream(key, fn),
    () => getStream(key),
  );

  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    attachVideo(key, el);
    return () => detachVideo(key, el);
  }, [key]);

  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    if (el.srcObject !== stream) el.srcObject = stream;
    if (!stream) return;
    const p = el.play?.();
    // Autoplay with sound can be refused (no user gesture since the page loaded): go on muted.
    if (p && typeof p.catch === 'function') {
      p.catch(() => {
        if (!el.muted) {
          el.muted = true;
          if (view === 'camera') dispatch(paneMutedChanged({ testerId, muted: true }));
          void el.play().catch(() => undefined);
        }
      });
    }
  }, [stream, dispatch, testerId, view]);

  useEffect(() => {
    if (ref.current) ref.current.muted = silent;
  }, [silent]);

  useEffect(() => {
    const el = ref.current;
    return () => {
      if (el) el.srcObject = null;
    };
  }, []);

  return (
    <video
      ref={ref}
      autoPlay
      playsInline
      muted={silent}
      aria-label={label}
      data-testid={view === 'camera' ? 'pane-video' : `pane-video-${view}`}
      data-view={view}
      className="w-100 bg-dark rounded"
      style={{ aspectRatio: '4 / 3', objectFit: 'contain' }}
    />
  );
}
