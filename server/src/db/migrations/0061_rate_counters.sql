-- Request limits other than the login's (log entries per address and per session, one-time exam tokens per
-- address) counted in the database, so they hold across every server instance on one database instead of
-- each instance allowing its own share (they were kept in each process's memory).
CREATE TABLE IF NOT EXISTS rate_counters (
  scope         text NOT NULL,
  key           text NOT NULL,
  window_start  timestamptz NOT NULL,
  events        integer NOT NULL,
  PRIMARY KEY (scope, key)
);
CREATE INDEX IF NOT EXISTS rate_counters_window_idx ON rate_counters (window_start);
