import type { Db } from '../../db/db';

/** Who sent a client log entry: the session's user when there is one, and the address. */
export interface LogSender {
  userId: number | null;
  loginId: string | null;
  actor: number | null;
  sessionId: number | null;
  ip: string;
}

/** A log entry the SPA reported (log_receive.php), cleaned and bounded by the caller. */
export interface ClientLogEntry {
  level: string;
  type: string;
  path: string;
  module: string;
  location: string;
  details: string;
  tag1: string;
  clientTs: string | null;
}

/** Stores a client log entry (source 'client'). */
export async function insertClientLog(db: Db, e: ClientLogEntry, by: LogSender): Promise<void> {
  await db.query(
    `INSERT INTO logs (source, level, type, path, module, location, details, tag1, client_ts, user_id, login_id, actor, ip, session_id)
         VALUES ('client', $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
    [
      e.level,
      e.type,
      e.path,
      e.module,
      e.location,
      e.details,
      e.tag1,
      e.clientTs,
      by.userId,
      by.loginId,
      by.actor,
      by.ip,
      by.sessionId,
    ],
  );
}

/** Stores a device log payload (device_logging.php) as JSON text (source 'device'). */
export async function insertDeviceLog(db: Db, payloadText: string, by: LogSender): Promise<void> {
  await db.query(
    `INSERT INTO logs (source, level, type, details, user_id, login_id, actor, ip, session_id)
         VALUES ('device', 'info', 'device', $1, $2, $3, $4, $5, $6)`,
    [payloadText, by.userId, by.loginId, by.actor, by.ip, by.sessionId],
  );
}
