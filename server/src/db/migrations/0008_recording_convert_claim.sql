-- The WebM duration fix is claimed through the database so several server instances share one queue:
-- a worker takes a record in '01' with SELECT … FOR UPDATE SKIP LOCKED and sets a lease; it renews the lease
-- while ffmpeg runs and clears it when done. A lease that runs out (a crashed instance) frees the record.
ALTER TABLE records ADD COLUMN IF NOT EXISTS convert_owner text;
ALTER TABLE records ADD COLUMN IF NOT EXISTS convert_lease_until timestamptz;
