import { useEffect, useState } from 'react';
import { startAudioLevelMeter } from '../../../media/audio-level';
import { LOCAL_STREAM_ID, getStream, onStreamChange } from '../../../media/stream-registry';

/** The microphone's live level (AnalyserNode, 1024-sample frames) as a meter with aria-valuenow. */
export function AudioLevelMeter({ label, streamId = LOCAL_STREAM_ID }: { label: string; streamId?: string }) {
  const [level, setLevel] = useState(0);
  const [version, setVersion] = useState(0);
  useEffect(() => onStreamChange((id) => id === streamId && setVersion((v) => v + 1)), [streamId]);
  useEffect(() => {
    const stream = getStream(streamId);
    if (!stream) return;
    return startAudioLevelMeter(stream, setLevel);
  }, [streamId, version]);
  return (
    <div
      role="meter"
      aria-label={label}
      aria-valuemin={0}
      aria-valuemax={100}
      aria-valuenow={level}
      data-testid="audio-level"
      className="progress"
      style={{ height: 16, maxWidth: 480 }}
    >
      <div className="progress-bar bg-success" style={{ width: `${level}%`, transition: 'none' }} />
    </div>
  );
}
