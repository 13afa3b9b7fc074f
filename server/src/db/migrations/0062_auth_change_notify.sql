-- Every instance keeps the sessions it has looked up, and the IP access limits, in memory (server/src/lib/
-- auth-cache.ts). Whatever ends or changes what a cached entry says is announced on the `auth_changed` channel
-- when it commits, whichever instance or tool wrote it, so every instance drops the entry at once:
--   s:<session id>  a session revoked, its expiry or last activity moved back, or a live session deleted
--   u:<user id>     an account's actor, login id, name, group or disabled flag changed, or the account deleted
--   a:              the IP access limits changed
-- The touch of sessions.last_seen_at (always forward) is not announced: a cache keeps its own.

CREATE OR REPLACE FUNCTION notify_auth_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_TABLE_NAME = 'sessions' THEN
    PERFORM pg_notify('auth_changed', 's:' || OLD.id);
  ELSIF TG_TABLE_NAME = 'users' THEN
    PERFORM pg_notify('auth_changed', 'u:' || OLD.id);
  ELSE
    PERFORM pg_notify('auth_changed', 'a:');
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER sessions_auth_changed_upd AFTER UPDATE ON sessions FOR EACH ROW
  WHEN (OLD.revoked_at IS DISTINCT FROM NEW.revoked_at OR OLD.expires_at IS DISTINCT FROM NEW.expires_at
        OR OLD.user_id IS DISTINCT FROM NEW.user_id OR OLD.token_hash IS DISTINCT FROM NEW.token_hash
        OR NEW.last_seen_at < OLD.last_seen_at)
  EXECUTE FUNCTION notify_auth_changed();
-- Only live sessions: the retention job's deletion of long-ended ones announces nothing.
CREATE TRIGGER sessions_auth_changed_del AFTER DELETE ON sessions FOR EACH ROW
  WHEN (OLD.revoked_at IS NULL)
  EXECUTE FUNCTION notify_auth_changed();

CREATE TRIGGER users_auth_changed_upd AFTER UPDATE ON users FOR EACH ROW
  WHEN (OLD.actor IS DISTINCT FROM NEW.actor OR OLD.login_id IS DISTINCT FROM NEW.login_id
        OR OLD.name IS DISTINCT FROM NEW.name OR OLD.group_id IS DISTINCT FROM NEW.group_id
        OR OLD.disabled IS DISTINCT FROM NEW.disabled)
  EXECUTE FUNCTION notify_auth_changed();
CREATE TRIGGER users_auth_changed_del AFTER DELETE ON users FOR EACH ROW
  EXECUTE FUNCTION notify_auth_changed();

CREATE TRIGGER access_limits_auth_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON access_limits
  FOR EACH STATEMENT EXECUTE FUNCTION notify_auth_changed();
