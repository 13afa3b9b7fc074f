-- Examinee search at 1M rows, continued (bench/search.mjs): the mark-type filter (mark_id).
--
-- "Has at least one marking of mark X" was a semi-join per row of tests into markings (mark_id, test_id).
-- Fine for the first page, but the capped count and every deep page probed markings once per candidate
-- row (≈ 110k probes for page 200 of one mark type at 1M rows), and a filter combined with it (a group)
-- could not be intersected with it before the rows were read. The distinct mark ids of each sitting are
-- now copied onto tests.mark_ids, kept in step by a trigger on markings (every writer, the checker's
-- marking route, fixtures and cascading deletes alike), and indexed with GIN, so the filter is one index
-- condition that the planner can AND with the other indexes or check on the row it already reads.
-- The index leaves out the unmarked sittings (most of them); the search adds `mark_ids <> '{}'` so the
-- partial index applies.
ALTER TABLE tests ADD COLUMN IF NOT EXISTS mark_ids bigint[] NOT NULL DEFAULT '{}';

UPDATE tests t SET mark_ids = m.ids
  FROM (SELECT test_id, array_agg(DISTINCT mark_id ORDER BY mark_id) AS ids
          FROM markings WHERE mark_id IS NOT NULL GROUP BY test_id) m
 WHERE m.test_id = t.id;

-- The mark ids of one sitting, recomputed from its markings (sorted, distinct).
CREATE OR REPLACE FUNCTION tests_refresh_mark_ids(p_test bigint) RETURNS void LANGUAGE sql AS $$
  UPDATE tests t SET mark_ids = s.ids
    FROM (SELECT coalesce(array_agg(DISTINCT mark_id ORDER BY mark_id), '{}') AS ids
            FROM markings WHERE test_id = p_test AND mark_id IS NOT NULL) s
   WHERE t.id = p_test AND t.mark_ids IS DISTINCT FROM s.ids;
$$;

CREATE OR REPLACE FUNCTION markings_sync_mark_ids() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    -- The common case (a checker adds a marking): append when the mark is new for the sitting.
    IF NEW.mark_id IS NOT NULL THEN
      UPDATE tests SET mark_ids = (SELECT array_agg(DISTINCT x ORDER BY x) FROM unnest(mark_ids || NEW.mark_id) x)
       WHERE id = NEW.test_id AND NOT (mark_ids @> ARRAY[NEW.mark_id]);
    END IF;
    RETURN NULL;
  END IF;
  PERFORM tests_refresh_mark_ids(OLD.test_id);
  IF TG_OP = 'UPDATE' AND NEW.test_id IS DISTINCT FROM OLD.test_id THEN
    PERFORM tests_refresh_mark_ids(NEW.test_id);
  END IF;
  RETURN NULL;
END;
$$;

CREATE TRIGGER markings_mark_ids_trg AFTER INSERT OR DELETE OR UPDATE OF mark_id, test_id ON markings
  FOR EACH ROW EXECUTE FUNCTION markings_sync_mark_ids();

CREATE INDEX IF NOT EXISTS tests_mark_ids_idx ON tests USING gin (mark_ids) WHERE mark_ids <> '{}';
