-- Why an AI identity attempt ended as it did (every decision is stored with its scores, so a manager can see
-- why): the verdict's machine reason, e.g. no_face, blurred, face_different, id_type_not_allowed.
ALTER TABLE ai_auth_attempts ADD COLUMN IF NOT EXISTS reason text NOT NULL DEFAULT '';
