-- The signaling ClientId a matched checker's viewer connects with, chosen by the server (random) when the
-- checker is assigned. The examinee's browser answers offers only from this ClientId, so a checker removed
-- from the matching (or anyone else holding viewer credentials for the channel) gets no answer and no media.
ALTER TABLE matchings ADD COLUMN IF NOT EXISTS viewer_client_id text;
