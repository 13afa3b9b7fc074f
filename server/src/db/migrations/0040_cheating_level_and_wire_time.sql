-- What managers see, computed in one place (README "Cheating level", "Times").
--
-- 1. wire_time(ts, zone): the one wire format of a timestamp, ISO 8601 with milliseconds and the zone's
--    offset (2026-11-25T08:19:42.435+09:00), for rows the database builds (search, logins, retention
--    settings, short URLs, access limits, logs). The server's toWireTime writes the same text.
CREATE OR REPLACE FUNCTION wire_time(ts timestamptz, tz text) RETURNS text
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT to_char(ts AT TIME ZONE tz, 'YYYY-MM-DD"T"HH24:MI:SS.MS')
      || CASE WHEN x.o < interval '0' THEN '-' ELSE '+' END
      || to_char(CASE WHEN x.o < interval '0' THEN -x.o ELSE x.o END, 'HH24:MI')
    FROM (SELECT (ts AT TIME ZONE tz) - (ts AT TIME ZONE 'UTC') AS o) x
$$;

-- 2. cheating_level (0 none, 1 low, 2 medium, 3 high) was never written: every sitting had 0, so its filter,
--    sort and CSV column did nothing. It is now the higher of two levels, each the number of thresholds
--    reached: the checkers' marking score (tests.total_score, the sum of the marks' scores) against
--    score_thresholds, and the AI analysis score (tests.ai_total_score, the sum of the AI markings'
--    confidence percentages) against ai_thresholds. The organisation sets the thresholds
--    (CHEATING_LEVEL_SCORE_THRESHOLDS, CHEATING_LEVEL_AI_THRESHOLDS); the server writes them here at start
--    and recomputes every sitting when they change.
CREATE TABLE IF NOT EXISTS cheating_level_settings (
  id                smallint PRIMARY KEY DEFAULT 1 CHECK (id = 1),
  score_thresholds  integer[] NOT NULL,
  ai_thresholds     integer[] NOT NULL,
  updated_at        timestamptz NOT NULL DEFAULT now()
);
INSERT INTO cheating_level_settings (id, score_thresholds, ai_thresholds)
VALUES (1, '{1,5,10}', '{50,150,300}') ON CONFLICT (id) DO NOTHING;

CREATE OR REPLACE FUNCTION cheating_level_of(score integer, ai_score integer) RETURNS integer
LANGUAGE sql STABLE AS $$
  SELECT coalesce((
    SELECT greatest(
             (SELECT count(*)::int FROM unnest(s.score_thresholds) th WHERE coalesce(score, 0) >= th),
             (SELECT count(*)::int FROM unnest(s.ai_thresholds) th WHERE coalesce(ai_score, 0) >= th))
      FROM cheating_level_settings s WHERE s.id = 1), 0)
$$;

-- The scores follow the markings whoever writes them (the checker's marking route, the AI analysis, fixtures,
-- retention deletes), and the level follows the scores.
CREATE OR REPLACE FUNCTION tests_refresh_scores(p_test bigint) RETURNS void LANGUAGE sql AS $$
  UPDATE tests t SET total_score = s.total, with_mark = s.marked
    FROM (SELECT coalesce(sum(m.score), 0)::int AS total, count(k.id) > 0 AS marked
            FROM markings k LEFT JOIN marks m ON m.id = k.mark_id WHERE k.test_id = p_test) s
   WHERE t.id = p_test AND (t.total_score, t.with_mark) IS DISTINCT FROM (s.total, s.marked);
$$;

CREATE OR REPLACE FUNCTION markings_sync_scores() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN PERFORM tests_refresh_scores(OLD.test_id); END IF;
  IF TG_OP <> 'DELETE' AND (TG_OP = 'INSERT' OR NEW.test_id IS DISTINCT FROM OLD.test_id) THEN
    PERFORM tests_refresh_scores(NEW.test_id);
  END IF;
  RETURN NULL;
END;
$$;
CREATE TRIGGER markings_scores_trg AFTER INSERT OR DELETE OR UPDATE OF mark_id, test_id ON markings
  FOR EACH ROW EXECUTE FUNCTION markings_sync_scores();

CREATE OR REPLACE FUNCTION ai_markings_sync_score() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  tid bigint := CASE WHEN TG_OP = 'DELETE' THEN OLD.test_id ELSE NEW.test_id END;
BEGIN
  UPDATE tests t SET ai_total_score = s.total
    FROM (SELECT coalesce(sum(score), 0)::int AS total FROM ai_markings WHERE test_id = tid) s
   WHERE t.id = tid AND t.ai_total_score IS DISTINCT FROM s.total;
  RETURN NULL;
END;
$$;
CREATE TRIGGER ai_markings_score_trg AFTER INSERT OR DELETE OR UPDATE OF score ON ai_markings
  FOR EACH ROW EXECUTE FUNCTION ai_markings_sync_score();

CREATE OR REPLACE FUNCTION tests_set_cheating_level() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.cheating_level := cheating_level_of(NEW.total_score, NEW.ai_total_score);
  RETURN NEW;
END;
$$;
CREATE TRIGGER tests_cheating_level_trg BEFORE INSERT OR UPDATE OF total_score, ai_total_score, cheating_level
  ON tests FOR EACH ROW EXECUTE FUNCTION tests_set_cheating_level();

-- Backfill: the scores of sittings marked before the triggers, then every level.
UPDATE tests t SET total_score = s.total, with_mark = true
  FROM (SELECT k.test_id, coalesce(sum(m.score), 0)::int AS total
          FROM markings k LEFT JOIN marks m ON m.id = k.mark_id GROUP BY k.test_id) s
 WHERE s.test_id = t.id AND (t.total_score, t.with_mark) IS DISTINCT FROM (s.total, true);
UPDATE tests t SET ai_total_score = s.total
  FROM (SELECT test_id, coalesce(sum(score), 0)::int AS total FROM ai_markings GROUP BY test_id) s
 WHERE s.test_id = t.id AND t.ai_total_score IS DISTINCT FROM s.total;
UPDATE tests SET cheating_level = cheating_level_of(total_score, ai_total_score)
 WHERE cheating_level IS DISTINCT FROM cheating_level_of(total_score, ai_total_score);
