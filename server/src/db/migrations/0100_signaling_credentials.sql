-- Signaling credentials handed out, shared by every server instance, so that kvs_reconnect can hand out again
-- what is still good instead of calling STS and KVS for every reconnect (lib/signaling-credentials.ts). One row
-- per (channel, role, user): the credentials last issued for it, under the matching they were handed out for.
-- A reconnect reuses a row only for the caller's live matching of that id, so an ended matching's credentials
-- are never handed out again by any instance. The secret access key and the session token are stored only
-- sealed (AES-256-GCM under CREDENTIALS_CACHE_KEY, bound to the row's channel, role, user and key id).
CREATE TABLE IF NOT EXISTS signaling_credentials (
  channel_name        text NOT NULL,
  role                text NOT NULL CHECK (role IN ('master', 'viewer')),
  user_id             bigint NOT NULL,
  matching_id         bigint NOT NULL,
  access_key_id       text NOT NULL,
  sealed              bytea NOT NULL,
  expires_at          timestamptz NOT NULL,
  -- After this a poll or reconnect gets new ones (the refresh margin before expires_at).
  refresh_at          timestamptz NOT NULL,
  -- When the channel was last known to exist on KVS (created, or found existing) by the instance that wrote this.
  channel_checked_at  timestamptz NOT NULL,
  PRIMARY KEY (channel_name, role, user_id)
);
CREATE INDEX IF NOT EXISTS signaling_credentials_expires_idx ON signaling_credentials (expires_at);

-- Channels the KVS channel sweep deleted (AWS mode), and when: a row above whose channel was checked before its
-- channel's deletion makes the reconnect check the channel again (and create it) before handing it out.
CREATE TABLE IF NOT EXISTS kvs_channel_deletions (
  channel_name  text PRIMARY KEY,
  deleted_at    timestamptz NOT NULL
);
