-- Stills captured from the examinee's camera during the exam (start-up capture_interval, capture_type,
-- is_capture_show, ai_sensitivity), what the AI saw in them, and the periods the examinee's connection was down.

-- One still. The image lives in object storage (the recordings bucket: S3, or the local stand-in), never on the
-- instance's disk. `status`: 'stored' (capture_type 0, no AI check), 'pending' / 'running' (AI realtime, being
-- analysed now), 'queued' (AI post analysis: waits for the end of the exam), 'done', 'failed'.
-- `captured_at` is the server's receive time minus the age the page measured on its own monotonic clock, so a
-- wrong clock on the examinee's machine cannot move it; `age_ms` above the late limit means the still waited
-- in the page's queue while the connection was down.
CREATE TABLE IF NOT EXISTS captures (
  id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  test_id       bigint NOT NULL REFERENCES tests(id) ON DELETE CASCADE,
  tester_id     bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  client_key    text NOT NULL,
  bucket        text NOT NULL,
  object_key    text NOT NULL,
  content_type  text NOT NULL,
  size_bytes    integer NOT NULL,
  capture_type  smallint NOT NULL CHECK (capture_type BETWEEN 0 AND 2),
  captured_at   timestamptz NOT NULL,
  received_at   timestamptz NOT NULL DEFAULT now(),
  age_ms        integer NOT NULL DEFAULT 0,
  status        text NOT NULL CHECK (status IN ('stored', 'pending', 'running', 'queued', 'done', 'failed')),
  attempts      integer NOT NULL DEFAULT 0,
  claimed_by    text,
  lease_until   timestamptz,
  -- What the detector found (faces with score, pose, similarity to the head shot) and the flags decided.
  result        jsonb,
  error         text NOT NULL DEFAULT '',
  analysed_at   timestamptz,
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now()
);
-- A page that sends a still again after a lost answer gets the one already stored.
CREATE UNIQUE INDEX IF NOT EXISTS captures_client_key_idx ON captures (test_id, client_key);
CREATE INDEX IF NOT EXISTS captures_test_time_idx ON captures (test_id, captured_at DESC, id DESC);
CREATE INDEX IF NOT EXISTS captures_work_idx ON captures (id) WHERE status IN ('pending', 'running', 'queued');

-- Periods the examinee's connection was down, derived from the matching polls: a poll that comes after a silence
-- longer than the gap limit records the silence (from when the missed poll was due until the poll came).
CREATE TABLE IF NOT EXISTS connection_gaps (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  test_id     bigint NOT NULL REFERENCES tests(id) ON DELETE CASCADE,
  started_at  timestamptz NOT NULL,
  ended_at    timestamptz NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  CHECK (ended_at >= started_at)
);
CREATE INDEX IF NOT EXISTS connection_gaps_test_idx ON connection_gaps (test_id, started_at);

-- AI markings from stills next to those from recordings. A capture marking is one episode: consecutive stills
-- with the same flag extend it (`last_capture_id`), its confidence is the highest of them, its still the first.
-- An excused marking (a still taken while the connection was down) is kept and shown, but not scored.
ALTER TABLE ai_markings
  ADD COLUMN IF NOT EXISTS source text NOT NULL DEFAULT 'recording' CHECK (source IN ('recording', 'capture')),
  ADD COLUMN IF NOT EXISTS flag text CHECK (flag IN ('no_face', 'several_people', 'other_person', 'looking_away')),
  ADD COLUMN IF NOT EXISTS capture_id bigint REFERENCES captures(id) ON DELETE SET NULL,
  ADD COLUMN IF NOT EXISTS last_capture_id bigint REFERENCES captures(id) ON DELETE SET NULL,
  ADD COLUMN IF NOT EXISTS ended_at timestamptz,
  ADD COLUMN IF NOT EXISTS excused boolean NOT NULL DEFAULT false,
  ADD COLUMN IF NOT EXISTS excuse_reason text,
  ADD COLUMN IF NOT EXISTS updated_at timestamptz NOT NULL DEFAULT now();
CREATE INDEX IF NOT EXISTS ai_markings_capture_idx ON ai_markings (test_id, marking_at) WHERE source = 'capture';

-- Bumped whenever a sitting's captures or capture markings change: the checker's live feed compares these to
-- know that something is new without reading the rows.
ALTER TABLE tests ADD COLUMN IF NOT EXISTS live_seq bigint NOT NULL DEFAULT 0;
CREATE SEQUENCE IF NOT EXISTS live_feed_seq;

-- The AI score (README "Cheating level", migration 0040) leaves excused markings out; it follows every change
-- of score, excused state or sitting, whoever writes it.
CREATE OR REPLACE FUNCTION ai_markings_sync_score() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN
    UPDATE tests t SET ai_total_score = s.total
      FROM (SELECT coalesce(sum(score), 0)::int AS total FROM ai_markings
             WHERE test_id = OLD.test_id AND NOT excused) s
     WHERE t.id = OLD.test_id AND t.ai_total_score IS DISTINCT FROM s.total;
  END IF;
  IF TG_OP <> 'DELETE' AND (TG_OP = 'INSERT' OR NEW.test_id IS DISTINCT FROM OLD.test_id) THEN
    UPDATE tests t SET ai_total_score = s.total
      FROM (SELECT coalesce(sum(score), 0)::int AS total FROM ai_markings
             WHERE test_id = NEW.test_id AND NOT excused) s
     WHERE t.id = NEW.test_id AND t.ai_total_score IS DISTINCT FROM s.total;
  END IF;
  RETURN NULL;
END;
$$;
DROP TRIGGER IF EXISTS ai_markings_score_trg ON ai_markings;
CREATE TRIGGER ai_markings_score_trg AFTER INSERT OR DELETE OR UPDATE OF score, excused, test_id ON ai_markings
  FOR EACH ROW EXECUTE FUNCTION ai_markings_sync_score();
