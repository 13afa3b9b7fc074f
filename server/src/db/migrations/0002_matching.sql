-- Live-channel matching (spec §3 "Matching", §4 matching poll, §9 five examinees per checker).

-- Checker liveness: one row per checker that has polled matching.php. A checker is alive until stale_at
-- (last poll + 3 × the matching timeout it was given). swept_at records when a stale checker's testers were
-- released, so the sweep touches each stale checker once.
CREATE TABLE checker_presence (
  checker_id        bigint PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
  last_poll_at      timestamptz NOT NULL DEFAULT now(),
  stale_at          timestamptz NOT NULL,
  swept_at          timestamptz,
  matching_timeout  integer NOT NULL DEFAULT 5,
  channel_status    text,
  stats             jsonb,
  -- Tie-break of the assignment (longest idle first).
  last_assigned_at  timestamptz
);
CREATE INDEX checker_presence_unswept_idx ON checker_presence (stale_at)
  WHERE swept_at IS NULL OR swept_at < stale_at;

ALTER TABLE matchings
  -- Pending command for the checker side (matching_command is the tester side's).
  ADD COLUMN checker_command     smallint NOT NULL DEFAULT 0,
  ADD COLUMN assigned_at         timestamptz,
  ADD COLUMN first_connected_at  timestamptz,
  -- Last tester poll + a multiple of its matching timeout; past it the matching is dropped.
  ADD COLUMN tester_stale_at     timestamptz,
  ADD COLUMN tester_stats        jsonb,
  ADD COLUMN delete_reason       text;

-- The waiting queue (oldest first) and the sweeps.
CREATE INDEX matchings_waiting_idx ON matchings (created_at, id) WHERE deleted_at IS NULL AND checker_id IS NULL;
CREATE INDEX matchings_tester_stale_idx ON matchings (tester_stale_at) WHERE deleted_at IS NULL;
-- Matching histories of a checker (deleted rows included), grouped by sitting.
CREATE INDEX matchings_checker_history_idx ON matchings (checker_id, test_id);
