-- The management pages: examinee search, CSV export, retention, access limits, logins, short URLs.

-- Examinee search (perf-reliability §4, DB-1): exact examinee name, cheating-level range, "has a marking of
-- mark X", and the CSV export's keyset over ids within a group. (Group + date, date, login id, test name,
-- region, score and the trigram index for the fuzzy name exist since 0001.)
CREATE INDEX IF NOT EXISTS tests_exam_name_idx ON tests (exam_name);
CREATE INDEX IF NOT EXISTS tests_cheating_level_idx ON tests (cheating_level);
CREATE INDEX IF NOT EXISTS tests_group_id_id_idx ON tests (group_id, id);
CREATE INDEX IF NOT EXISTS markings_mark_test_idx ON markings (mark_id, test_id);

-- Live sessions for the logins list and the management summary.
CREATE INDEX IF NOT EXISTS sessions_live_idx ON sessions (user_id, last_seen_at) WHERE revoked_at IS NULL;

-- Retention: ended matchings by age (monitor history).
CREATE INDEX IF NOT EXISTS matchings_ended_created_idx ON matchings (created_at) WHERE deleted_at IS NOT NULL;

-- The system rows of the retention settings (spec §2 "Delete-setting page"): -1 system log, -2 monitor
-- history, -3 default for groups without their own row. Days.
INSERT INTO cleaner_settings (group_id, duration) VALUES (-1, 365), (-2, 365), (-3, 1095)
  ON CONFLICT (group_id) DO NOTHING;

-- One row per day the retention job ran: claiming the date first makes the daily run happen once even
-- with several server instances or restarts.
CREATE TABLE IF NOT EXISTS retention_runs (
  run_date     date PRIMARY KEY,
  started_at   timestamptz NOT NULL DEFAULT now(),
  finished_at  timestamptz,
  report       jsonb
);
