-- Examinee search at 1M rows, deep pages (bench/search.mjs). A deep page (page 200 of a
-- capped result) and the capped count (10,001 matches) walk an index until enough rows pass the filters:
-- ≈ 100k entries for a filter that keeps 1 row in 10. What each step of that walk costs is what this changes.
--
-- 1. Mark type. The filter was `mark_ids <> '{}' AND mark_ids @> ARRAY[m]`, the first clause only there so
--    the partial GIN index of 0009 applied. The planner multiplies the two clauses' selectivities as if they
--    were independent (14 % × 9.6 % at 1M bench rows), so it expected 7 times fewer matches than there were
--    and chose plans for a small result (a bitmap of every match, then a sort: ≈ 96k rows fetched for a page
--    of 50). A sitting without marks now has mark_ids NULL instead of '{}': `mark_ids @> ARRAY[m]` alone then
--    implies `mark_ids IS NOT NULL` (the operator is strict), so partial indexes on the marked sittings apply
--    to it without a second clause, and its estimate is right. Besides the GIN index, the marked sittings get
--    their own date indexes (also per group, for test managers and a group filter), so a mark type in the
--    default order walks marked sittings only (≈ 15k entries for page 200 instead of ≈ 105k).
-- 2. Fuzzy name. `exam_name ILIKE '%…%'` lower-cases the name again for every row it tests (the database is
--    UTF-8, where ILIKE is lower(name) LIKE lower(pattern)): ≈ 0.4 µs a row, most of the cost of a common
--    fragment ("tanaka": 1 row in 10). The name is now kept lower-cased in exam_name_folded (a generated
--    column, so every writer keeps it in step) and the search asks `exam_name_folded LIKE lower(pattern)`:
--    the same rows as the ILIKE, with a plain byte match. The trigram index moves to that column (pg_trgm
--    lower-cases its trigrams either way).
-- 3. Filters on a sort. Each step of the walk fetched its table row to test the filter, a random one when the
--    sort does not follow the table's order (group name with score ≥ 90: 434 ms on PGlite). The indexes of the
--    default sort (test date, also per group for test managers) and of the group-name sort now carry the
--    columns of the scalar filters and the folded name, so the filter is tested on the index entry and the
--    walk is an index-only scan (the search finds a page's ids first, then reads those rows). Those columns
--    were already indexed elsewhere, so an update that changes them was already not a HOT update: no extra
--    write cost beyond the wider entries.
--
-- Applied at start like every migration: at 1M sittings the table is rewritten once and these indexes built
-- again (about a minute on PostgreSQL, a few on PGlite); writes to tests wait meanwhile. Index-only scans
-- need the table's visibility map: PostgreSQL's autovacuum keeps it; PGlite runs no autovacuum (README).
DROP INDEX IF EXISTS tests_mark_ids_idx;
DROP INDEX IF EXISTS tests_exam_name_trgm_idx;
DROP INDEX IF EXISTS tests_test_at_idx;
DROP INDEX IF EXISTS tests_group_test_at_idx;
DROP INDEX IF EXISTS tests_group_name_id_idx;

-- One rewrite for both columns.
ALTER TABLE tests
  ALTER COLUMN mark_ids DROP DEFAULT,
  ALTER COLUMN mark_ids DROP NOT NULL,
  ALTER COLUMN mark_ids TYPE bigint[] USING nullif(mark_ids, '{}'),
  ADD COLUMN IF NOT EXISTS exam_name_folded text GENERATED ALWAYS AS (lower(exam_name)) STORED;

-- The mark ids of one sitting, recomputed from its markings (sorted, distinct; NULL when none).
CREATE OR REPLACE FUNCTION tests_refresh_mark_ids(p_test bigint) RETURNS void LANGUAGE sql AS $$
  UPDATE tests t SET mark_ids = s.ids
    FROM (SELECT array_agg(DISTINCT mark_id ORDER BY mark_id) AS ids
            FROM markings WHERE test_id = p_test AND mark_id IS NOT NULL) s
   WHERE t.id = p_test AND t.mark_ids IS DISTINCT FROM s.ids;
$$;

CREATE OR REPLACE FUNCTION markings_sync_mark_ids() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    -- The common case (a checker adds a marking): append when the mark is new for the sitting.
    IF NEW.mark_id IS NOT NULL THEN
      UPDATE tests SET mark_ids = (SELECT array_agg(DISTINCT x ORDER BY x)
                                     FROM unnest(coalesce(mark_ids, '{}') || NEW.mark_id) x)
       WHERE id = NEW.test_id AND (mark_ids IS NULL OR NOT (mark_ids @> ARRAY[NEW.mark_id]));
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

CREATE INDEX tests_mark_ids_idx ON tests USING gin (mark_ids) WHERE mark_ids IS NOT NULL;
CREATE INDEX tests_marked_test_at_idx ON tests (test_at DESC, id DESC) INCLUDE (mark_ids)
  WHERE mark_ids IS NOT NULL;
CREATE INDEX tests_marked_group_test_at_idx ON tests (group_id, test_at DESC, id DESC) INCLUDE (mark_ids)
  WHERE mark_ids IS NOT NULL;
CREATE INDEX tests_exam_name_folded_trgm_idx ON tests USING gin (exam_name_folded gin_trgm_ops);
CREATE INDEX tests_test_at_idx ON tests (test_at DESC, id DESC)
  INCLUDE (total_score, cheating_level, with_mark, record, exam_name_folded);
CREATE INDEX tests_group_test_at_idx ON tests (group_id, test_at DESC, id DESC)
  INCLUDE (total_score, cheating_level, with_mark, record, exam_name_folded);
CREATE INDEX tests_group_name_id_idx ON tests (group_name, id)
  INCLUDE (total_score, cheating_level, with_mark, record, exam_name_folded);
