-- How far behind each server instance answers the matching poll (its recent slowest poll), so that the liveness
-- sweep of any instance does not count people gone for time the servers themselves were behind (README
-- "Silence"). One row per running instance, rewritten about once a second; rows of instances gone stop counting
-- after a minute and are removed by the sweep later.
CREATE TABLE IF NOT EXISTS matching_lag (
  owner     text PRIMARY KEY,
  lag_ms    integer NOT NULL,
  noted_at  timestamptz NOT NULL DEFAULT now()
);
