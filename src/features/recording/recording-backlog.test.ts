import { describe, expect, it } from 'vitest';
import { mergeServerParts, recordOfKey } from './recording-backlog';
import type { UploadMeta } from '../../media/recording/chunk-store';

const span = {
  firstChunk: { segment: 0, seq: 0 },
  lastChunk: { segment: 0, seq: 0 },
  offsets: { start: 0, end: 10 },
};

describe('recording backlog', () => {
  it('reads the record id, segment and stream from the object key', () => {
    expect(recordOfKey('recordings/7/41-3.webm')).toEqual({ recordId: 41, segment: 3, stream: 'camera' });
    expect(recordOfKey('recordings/7/screen/42-2.webm')).toEqual({
      recordId: 42,
      segment: 2,
      stream: 'screen',
    });
    expect(recordOfKey('recordings/7/room_scan/43-1.mp4')).toEqual({
      recordId: 43,
      segment: 1,
      stream: 'room_scan',
    });
    expect(recordOfKey('other/key')).toBeNull();
  });

  it('marks only parts storage holds with the same size as confirmed', () => {
    const meta: UploadMeta = {
      recordingKey: 'k',
      bucket: 'b',
      key: 'recordings/7/41-1.webm',
      uploadId: 'U',
      partSize: 10,
      mimeType: null,
      lastSegment: 0,
      finished: false,
      parts: [
        { PartNumber: 1, ETag: '"a"', size: 10, ...span },
        { PartNumber: 2, ETag: null, size: 10, ...span },
        { PartNumber: 3, ETag: null, size: 10, ...span },
        { PartNumber: 4, ETag: null, size: 10, ...span },
      ],
    };
    const merged = mergeServerParts(meta, [
      { PartNumber: 2, ETag: '"b"', Size: 10 },
      { PartNumber: 3, ETag: '"c"', Size: 7 },
    ]);
    expect(merged.parts.map((p) => p.ETag)).toEqual(['"a"', '"b"', null, null]);
  });
});
