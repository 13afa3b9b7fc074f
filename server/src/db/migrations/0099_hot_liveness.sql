-- Every examinee poll rewrites its matching's liveness (last_tester_poll_at, tester_stale_at, tester_stats,
-- channel_status) and every checker poll its presence row (stale_at, last_poll_at, stats). An update that changes
-- no indexed column and finds room on its row's page is a HOT update: PostgreSQL writes no index entry for it.
-- With tester_stale_at and stale_at indexed, no poll's update was (0 % HOT, measured by `npm run bench` with
-- BENCH_TOP=1), and each one wrote an entry into every one of matchings' live indexes, and left them for vacuum.
-- The sweeps that used these two indexes read every live matching and presence row anyway, once a second, to
-- count the silent (the mass-silence rule); they find the silent ones through the partial indexes of live
-- matchings (deleted_at IS NULL), whose columns a poll never changes.
DROP INDEX IF EXISTS matchings_tester_stale_idx;
DROP INDEX IF EXISTS checker_presence_unswept_idx;
-- Room on the page for the new row versions of the live rows (new pages only; existing ones as they are rewritten).
ALTER TABLE matchings SET (fillfactor = 85);
ALTER TABLE checker_presence SET (fillfactor = 50);
