-- A recording cut off because its page went away during it (a reload during a room scan or a screen share), as
-- the examinee detail labels it: set when the new page starts the scan again or reports that it no longer holds
-- the share, whether the old page still completed the recording as it unloaded or the server completes it.
ALTER TABLE records ADD COLUMN IF NOT EXISTS interrupted boolean NOT NULL DEFAULT false;
