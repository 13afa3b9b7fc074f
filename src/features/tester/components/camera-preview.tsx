import { useEffect, useRef, useState } from 'react';
import { LOCAL_STREAM_ID, getStream, onStreamChange } from '../../../media/stream-registry';

/**
 * The local camera preview: one <video> (muted, playsInline) that is never remounted; its srcObject is
 * set from the stream registry in an effect and cleared on cleanup (STYLE habit 6).
 */
export function CameraPreview({ label, streamId = LOCAL_STREAM_ID }: { label: string; streamId?: string }) {
  const ref = useRef<HTMLVideoElement>(null);
  const [version, setVersion] = useState(0);
  useEffect(() => onStreamChange((id) => id === streamId && setVersion((v) => v + 1)), [streamId]);
  useEffect(() => {
    const video = ref.current;
    if (!video) return;
    video.srcObject = getStream(streamId);
    if (video.srcObject) void video.play?.()?.catch(() => undefined);
    return () => {
      video.srcObject = null;
    };
  }, [streamId, version]);
  return (
    <video
      ref={ref}
      muted
      playsInline
      autoPlay
      aria-label={label}
      data-testid="camera-preview"
      className="w-100 bg-dark rounded"
      style={{ maxWidth: 480, aspectRatio: '4 / 3' }}
    />
  );
}
