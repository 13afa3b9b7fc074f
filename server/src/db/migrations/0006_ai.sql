-- Recording analysis jobs: one per recording and request; a manual request (analysis_request/request)
-- or the automatic analysis after an exam (kind 'batch'). A job is retried once, then its record goes to '07'.
CREATE TABLE IF NOT EXISTS analysis_jobs (
  id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  request_id   bigint REFERENCES analysis_requests(id) ON DELETE CASCADE,
  record_id    bigint NOT NULL REFERENCES records(id) ON DELETE CASCADE,
  test_id      bigint NOT NULL REFERENCES tests(id) ON DELETE CASCADE,
  kind         text NOT NULL CHECK (kind IN ('manual', 'batch')),
  method       smallint NOT NULL CHECK (method BETWEEN 1 AND 5),
  types        text NOT NULL,
  status       text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'running', 'done', 'error')),
  attempts     integer NOT NULL DEFAULT 0,
  error        text NOT NULL DEFAULT '',
  progress     integer NOT NULL DEFAULT 0,
  created_at   timestamptz NOT NULL DEFAULT now(),
  started_at   timestamptz,
  finished_at  timestamptz,
  updated_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS analysis_jobs_queue_idx ON analysis_jobs (id) WHERE status IN ('queued', 'running');
CREATE INDEX IF NOT EXISTS analysis_jobs_request_idx ON analysis_jobs (request_id);
CREATE INDEX IF NOT EXISTS ai_markings_record_idx ON ai_markings (record_id);
