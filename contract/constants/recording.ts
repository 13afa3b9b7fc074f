// The recording group's constants: record (movie) states, part size, MIME types.
// Plain values without TypeBox, so the SPA may import them (contract/README.md).

/** spec §4 record (video) status codes. */
export const MOVIE_STATUS = {
  notConverted: '00',
  converting: '01',
  converted: '02',
  analysisNotProcessed: '03',
  analysisRequested: '04',
  analysing: '05',
  analysed: '06',
  analysisError: '07',
  conversionError: '08',
} as const;
export type MovieStatus = (typeof MOVIE_STATUS)[keyof typeof MOVIE_STATUS];

/** S3's minimum size of every part but the last (spec §9 "part size threshold 5,242,880 bytes"). */
export const RECORDING_PART_SIZE = 5_242_880;

/** MIME types a recording may have (recorder.mimeType, media-stack.md §5 and §8 pitfall 14). */
export const RECORDING_MIME_PATTERN = /^(video|audio)\/(webm|x-matroska|mp4)(\s*;[\x20-\x7e]{0,150})?$/i;
