-- The publishing run of the phone's page that said it left (phone/leave `run`). A poll of that run that was already
-- on its way when the page went (it reaches the server after the leave) must not bring the phone back: it would
-- read as live again until its silence ran out. A poll of another run (the page reloaded) brings it back as before.
ALTER TABLE phone_links ADD COLUMN IF NOT EXISTS left_run text;
