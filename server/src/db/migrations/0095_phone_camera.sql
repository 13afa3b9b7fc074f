-- The examinee's phone as a second camera of a sitting: a short-lived single-use pairing code shown as a QR code
-- on the examinee's page, a session that can do only the phone's job for that one sitting, and the phone's state
-- (paired, publishing, lost) that the checker and the examinee log see.

-- One pairing code. Only the SHA-256 of the code is stored; a new code for the sitting ends the unused older ones.
CREATE TABLE IF NOT EXISTS phone_pairings (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  token_hash  bytea NOT NULL UNIQUE,
  test_id     bigint NOT NULL REFERENCES tests(id) ON DELETE CASCADE,
  user_id     bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  expires_at  timestamptz NOT NULL,
  used_at     timestamptz,
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS phone_pairings_test_idx ON phone_pairings (test_id) WHERE used_at IS NULL;

-- A phone session is a session of the examinee's account bound to one sitting: the auth plugin lets it call only
-- the routes whose access names 'phone', and a login of the examinee elsewhere does not end it.
ALTER TABLE sessions ADD COLUMN IF NOT EXISTS phone_test_id bigint REFERENCES tests(id) ON DELETE CASCADE;
CREATE INDEX IF NOT EXISTS sessions_phone_test_idx ON sessions (phone_test_id) WHERE phone_test_id IS NOT NULL;

-- The sitting's current phone. `stale_at` moves forward with every poll of the phone; a phone that stops polling
-- (screen locked, battery, network, page closed) is lost once it passes, and `lost_at` records when that was
-- noticed (the examinee log gets 'phone_lost' once per loss). A new pairing (rescanning) starts it afresh.
CREATE TABLE IF NOT EXISTS phone_links (
  test_id         bigint PRIMARY KEY REFERENCES tests(id) ON DELETE CASCADE,
  session_id      bigint NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  paired_at       timestamptz NOT NULL DEFAULT now(),
  last_poll_at    timestamptz NOT NULL DEFAULT now(),
  stale_at        timestamptz NOT NULL,
  channel_status  text NOT NULL DEFAULT 'close' CHECK (channel_status IN ('open', 'close', 'failed', 'error')),
  live_at         timestamptz,
  lost_at         timestamptz,
  lost_reason     text CHECK (lost_reason IN ('no_response', 'left', 'replaced')),
  camera          text CHECK (camera IN ('environment', 'user')),
  stats           jsonb
);
CREATE INDEX IF NOT EXISTS phone_links_stale_idx ON phone_links (stale_at) WHERE lost_at IS NULL;
