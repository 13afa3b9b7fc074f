import { useEffect, useRef, useSyncExternalStore } from 'react';
import { useAppDispatch } from '../../../app/hooks';
import { attachVideo, detachVideo, getStream, subscribeStream } from '../../../media/viewer-registry';
import { paneMutedChanged } from '../monitoring-slice';

export interface PaneVideoProps {
  testerId: number;
  muted: boolean;
  label: string;
}

/**
 * The examinee's live video. The <video> element is rendered once and never remounted; its srcObject is set in
 * an effect from the registry (jitsi habit: media is "blackboxed from React").
 */
export function PaneVideo({ testerId, muted, label }: PaneVideoProps) {
  const ref = useRef<HTMLVideoElement>(null);
  const dispatch = useAppDispatch();
  const key = String(testerId);
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
          dispatch(paneMutedChanged({ testerId, muted: true }));
          void el.play().catch(() => undefined);
        }
      });
    }
  }, [stream, dispatch, testerId]);

  useEffect(() => {
    if (ref.current) ref.current.muted = muted;
  }, [muted]);

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
      aria-label={label}
      data-testid="pane-video"
      className="w-100 bg-dark rounded"
      style={{ aspectRatio: '4 / 3', objectFit: 'contain' }}
    />
  );
}
