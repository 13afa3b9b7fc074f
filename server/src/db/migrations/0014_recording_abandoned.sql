-- Why the server was asked to complete a recording: 'ended' (the sitting ended: finish, logout, kick-out, the
-- recording-time limit) or 'abandoned' (the examinee's window went away and nobody came back). An abandoned
-- recording's completion is called off when the examinee comes back, so a page that resumes keeps recording.
ALTER TABLE records ADD COLUMN IF NOT EXISTS finalize_reason text;
