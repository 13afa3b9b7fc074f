-- One-time tokens of get_mc_token (spec §7): mode 1 proctor token, mode 2 MC+ start-up. Only a SHA-256 of
-- the token is stored; a token is bound to one sitting, expires quickly and is spent on first use.
CREATE TABLE mc_tokens (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  token_hash  bytea NOT NULL UNIQUE,
  test_id     bigint NOT NULL REFERENCES tests(id) ON DELETE CASCADE,
  user_id     bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  mode        smallint NOT NULL CHECK (mode IN (1, 2)),
  expires_at  timestamptz NOT NULL,
  used_at     timestamptz,
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX mc_tokens_test_idx ON mc_tokens (test_id);

-- webrtc_message polling reads a sitting's messages newer than an id; markings and records are read per sitting.
CREATE INDEX messages_tester_idx ON messages (tester_id, id DESC);
CREATE INDEX ai_auth_attempts_test_idx ON ai_auth_attempts (test_id, created_at);
