-- Client-reported log entries (log_receive, device_logging) are attributed to the session that sent them,
-- when there is one, so a forged or noisy entry can be traced to a login (anonymous ones have none).
ALTER TABLE logs ADD COLUMN IF NOT EXISTS session_id bigint;
