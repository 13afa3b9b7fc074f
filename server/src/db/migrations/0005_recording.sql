-- Recording upload bookkeeping (spec §3 "Record", §4 status codes).
-- object_etag: the object's ETag after completion (and after the duration fix replaced it);
-- part_count: how many parts the completed object was assembled from (record_parts holds them).
ALTER TABLE records ADD COLUMN IF NOT EXISTS object_etag text;
ALTER TABLE records ADD COLUMN IF NOT EXISTS part_count integer;

-- Segment lookups on start (a repeated PUT for the same segment returns the same record).
CREATE INDEX IF NOT EXISTS records_test_segment_idx ON records (test_id, segment);
-- The conversion queue resumes records left in '01' (converting) after a restart.
CREATE INDEX IF NOT EXISTS records_converting_idx ON records (id) WHERE movie_status = '01';
CREATE INDEX IF NOT EXISTS record_status_logs_record_idx ON record_status_logs (record_id, id);
