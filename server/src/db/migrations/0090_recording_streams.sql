-- A sitting records several streams, each as its own recordings (README "The wider view"): the camera (every
-- recording before this migration), the shared screen, room scans, and a paired phone. Segments are numbered
-- per stream; quotas, the recording-time limit, markings and AI analysis look at the stream they are about.
ALTER TABLE records ADD COLUMN IF NOT EXISTS stream text NOT NULL DEFAULT 'camera';
ALTER TABLE records DROP CONSTRAINT IF EXISTS records_stream_check;
ALTER TABLE records ADD CONSTRAINT records_stream_check
  CHECK (stream IN ('camera', 'screen', 'room_scan', 'phone'));
-- A stream's segments (a repeated start of the same segment returns the same record) and its open recording.
CREATE INDEX IF NOT EXISTS records_test_stream_segment_idx ON records (test_id, stream, segment);
CREATE INDEX IF NOT EXISTS records_open_idx ON records (tester_id, stream, id) WHERE stop_at IS NULL;
