-- Analysis jobs shared by several server instances on one database: a job is claimed atomically by
-- one instance (claimed_by) for a lease it renews while the job runs; a job whose lease ran out (its instance
-- crashed) is taken over by the next instance that looks. The automatic analysis after an exam is queued at
-- most once per recording, whichever instance sees the conversion or sweeps for missed ones.
ALTER TABLE analysis_jobs ADD COLUMN IF NOT EXISTS claimed_by text;
ALTER TABLE analysis_jobs ADD COLUMN IF NOT EXISTS lease_until timestamptz;
CREATE UNIQUE INDEX IF NOT EXISTS analysis_jobs_batch_once ON analysis_jobs (record_id) WHERE kind = 'batch';
-- The sweep for missed automatic analyses looks at recordings converted in the last day.
CREATE INDEX IF NOT EXISTS records_converted_recent_idx ON records (encoded_at) WHERE movie_status = '02';
