-- Periodic jobs shared by every server instance on one database. A job's run is claimed in one statement when
-- it is due (its last run started at least its interval ago and finished, or its holder's lease ran out: the
-- instance died), so N instances run it once per interval, and a run cut short by a crash is taken over.
CREATE TABLE IF NOT EXISTS scheduler_runs (
  job          text PRIMARY KEY,
  owner        text NOT NULL,
  started_at   timestamptz NOT NULL,
  lease_until  timestamptz NOT NULL,
  finished_at  timestamptz
);

-- The daily retention run was claimed by its date alone: an instance that died during the run left the day
-- unfinished for good. Its claim now carries a lease the holder renews; another instance takes over a run
-- whose lease ran out (deleting what the plan lists is idempotent).
ALTER TABLE retention_runs ADD COLUMN IF NOT EXISTS claimed_by text;
ALTER TABLE retention_runs ADD COLUMN IF NOT EXISTS lease_until timestamptz;
