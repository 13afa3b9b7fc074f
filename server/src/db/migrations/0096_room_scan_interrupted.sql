-- A room scan cut off before it was completed (the examinee's page reloaded or reopened during it) is closed as
-- 'interrupted', and the next start opens a new scan, so the examinee log tells both apart. `attempt` is the
-- token the page sends with its start (one per press of "start the scan", the same on its retries): a start
-- with another token while a scan is under way comes from another page.
ALTER TABLE room_scans ADD COLUMN IF NOT EXISTS attempt text;
ALTER TABLE room_scans DROP CONSTRAINT IF EXISTS room_scans_status_check;
ALTER TABLE room_scans ADD CONSTRAINT room_scans_status_check
  CHECK (status IN ('requested', 'scanning', 'done', 'interrupted'));
DROP INDEX IF EXISTS room_scans_open_idx;
CREATE UNIQUE INDEX IF NOT EXISTS room_scans_open_idx ON room_scans (test_id)
  WHERE status IN ('requested', 'scanning');
