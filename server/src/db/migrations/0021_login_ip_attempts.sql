-- Login attempts per client address in the current 60 s window, so the per-IP login limit holds across
-- every server instance on one database (it was kept in each process's memory).
CREATE TABLE IF NOT EXISTS login_ip_attempts (
  ip            text PRIMARY KEY,
  window_start  timestamptz NOT NULL,
  attempts      integer NOT NULL
);
CREATE INDEX IF NOT EXISTS login_ip_attempts_window_idx ON login_ip_attempts (window_start);
