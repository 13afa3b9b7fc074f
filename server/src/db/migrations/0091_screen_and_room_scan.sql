-- The wider view's state per sitting (README "The wider view").
-- The screen share as the examinee's page last reported it: 'shared' (the entire screen) or 'ended' (the share
-- stopped, or a page that lost it after a reload said so); NULL before the first report. The exam system opens
-- only while it is 'shared' for a sitting with is_screen_record.
ALTER TABLE tests ADD COLUMN IF NOT EXISTS screen_share_state text;
ALTER TABLE tests DROP CONSTRAINT IF EXISTS tests_screen_share_state_check;
ALTER TABLE tests ADD CONSTRAINT tests_screen_share_state_check
  CHECK (screen_share_state IS NULL OR screen_share_state IN ('shared', 'ended'));
ALTER TABLE tests ADD COLUMN IF NOT EXISTS screen_share_at timestamptz;

-- Room scans: the one before the exam (requested_by NULL) and those a checker asked for during it. At most one
-- is open (requested or scanning) per sitting. `record_id`: its recording (stream room_scan), when one was made.
CREATE TABLE IF NOT EXISTS room_scans (
  id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  test_id       bigint NOT NULL REFERENCES tests(id) ON DELETE CASCADE,
  status        text NOT NULL CHECK (status IN ('requested', 'scanning', 'done')),
  requested_by  bigint REFERENCES users(id) ON DELETE SET NULL,
  requested_at  timestamptz,
  started_at    timestamptz,
  completed_at  timestamptz,
  record_id     bigint REFERENCES records(id) ON DELETE SET NULL,
  created_at    timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX IF NOT EXISTS room_scans_open_idx ON room_scans (test_id) WHERE status <> 'done';
CREATE INDEX IF NOT EXISTS room_scans_test_idx ON room_scans (test_id, id);
