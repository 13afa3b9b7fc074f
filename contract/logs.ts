import { Type, type Static } from 'typebox';

/** The server keeps at most this much of a log entry's details (spec §9: logged detail length 1024). */
export const LOG_DETAILS_MAX = 1024;

/** log_receive body (spec §3 "Log entry"). */
export const LogReceiveBody = Type.Object({
  type: Type.String({ maxLength: 32 }),
  path: Type.Optional(Type.String({ maxLength: 2048 })),
  module: Type.Optional(Type.String({ maxLength: 128 })),
  location: Type.Optional(Type.String({ maxLength: 2048 })),
  details: Type.Optional(Type.String({ maxLength: 16384 })),
  timestamp: Type.Optional(Type.String({ maxLength: 32 })),
  tag1: Type.Optional(Type.String({ maxLength: 128 })),
});
export type LogReceiveBody = Static<typeof LogReceiveBody>;

/** Largest device_logging payload the server keeps, as JSON text. */
export const DEVICE_LOG_MAX_BYTES = 16 * 1024;

/** device_logging body: any JSON payload (a device report), at most DEVICE_LOG_MAX_BYTES as JSON. */
export const DeviceLoggingBody = Type.Object({
  payload: Type.Optional(Type.Unknown()),
});

/** servertime: `timeZone` is an IANA zone (the browser's); UTC when absent. */
export const ServerTimeQuery = Type.Object({
  timeZone: Type.Optional(Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_+\\-/]+$' })),
});
export type ServerTimeQuery = Static<typeof ServerTimeQuery>;
export const ServerTimeResult = Type.Object({ serverTime: Type.String(), timeZone: Type.String() });
export type ServerTimeResult = Static<typeof ServerTimeResult>;

/**
 * admin_permission: whether the caller's IP may use the admin/proctor pages. Answered with HTTP 200 either
 * way: `status` 200 / `process` 1 when allowed, `status` 403 / `process` 0 with a message when not.
 */
export const AdminPermissionResult = Type.Object({
  status: Type.Integer(),
  process: Type.Integer(),
  message: Type.String(),
});
export type AdminPermissionResult = Static<typeof AdminPermissionResult>;
