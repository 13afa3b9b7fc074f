-- Short leases that serialise one recording's start or end across every server instance sharing this database
-- (an in-process mutex only covers one instance). A holder renews its lease while it works; a lease that runs
-- out (a crashed instance) can be taken by the next caller.
CREATE TABLE IF NOT EXISTS request_locks (
  lock_key text PRIMARY KEY,
  owner text NOT NULL,
  lease_until timestamptz NOT NULL
);
