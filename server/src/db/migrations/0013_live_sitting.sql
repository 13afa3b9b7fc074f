-- How a live sitting survives re-login, logout, kick-out and the end of the exam.

-- Why a session ended: 'logout', 'superseded' (the examinee logged in again elsewhere), 'self_kick_out',
-- 'ai_forced_logout', 'recording_time_exceeded'. A request with such a token is told why (401 + code).
ALTER TABLE sessions ADD COLUMN IF NOT EXISTS revoke_reason text;
CREATE INDEX IF NOT EXISTS sessions_user_live_idx ON sessions (user_id) WHERE revoked_at IS NULL;

-- The short URL whose start-up parameters were bound to the sitting when it opened. A later login through
-- another URL never rebinds an open sitting (proctoring, recording and identity settings stay as bound).
ALTER TABLE tests ADD COLUMN IF NOT EXISTS url_key text;

-- The checker console shows, for a while, matchings that ended for a reason a checker must see (logout,
-- kick-out, finished, connection lost): read by checker and end time.
CREATE INDEX IF NOT EXISTS matchings_checker_ended_idx ON matchings (checker_id, deleted_at)
  WHERE deleted_at IS NOT NULL;

-- A recording that the page could not finish itself (kick-out, logout, exam end, recording time exceeded)
-- is completed by the server from the parts it holds once this time has passed.
ALTER TABLE records ADD COLUMN IF NOT EXISTS finalize_at timestamptz;
CREATE INDEX IF NOT EXISTS records_finalize_due_idx ON records (finalize_at)
  WHERE stop_at IS NULL AND finalize_at IS NOT NULL;
