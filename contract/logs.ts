import { Type, type Static } from 'typebox';
import { LOG_SOURCES, LOG_LEVELS } from './constants/logs';
export * from './constants/logs';

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

/** device_logging body: any JSON payload (a device report), at most DEVICE_LOG_MAX_BYTES as JSON. */
export const DeviceLoggingBody = Type.Object({
  payload: Type.Optional(Type.Unknown()),
});

/**
 * servertime (spec §7 "GET timeZone → serverTime"): `timeZone` is an IANA zone (the browser's); UTC when
 * absent. `serverTime` is that zone's wall clock `yyyy-MM-dd HH:mm:ss`, the one time the spec gives a format
 * of its own (README "Times").
 */
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

/** `yyyy-MM-dd HH:mm` in the deployment's time zone (TIME_ZONE, default Asia/Tokyo). */
const MinuteText = Type.String({ pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}$', maxLength: 16 });

/** logs/search query (/logview): every filter is optional; newest first. */
export const LogSearchQuery = Type.Object({
  from: Type.Optional(Type.Union([Type.Literal(''), MinuteText])),
  to: Type.Optional(Type.Union([Type.Literal(''), MinuteText])),
  source: Type.Optional(Type.Union([...LOG_SOURCES, 'all'].map((s) => Type.Literal(s)))),
  actor: Type.Optional(Type.Integer({ minimum: 1, maximum: 5 })),
  login_id: Type.Optional(Type.String({ maxLength: 64 })),
  level: Type.Optional(Type.Union(LOG_LEVELS.map((l) => Type.Literal(l)))),
  /** Case-insensitive substring of type, module, details or location. */
  text: Type.Optional(Type.String({ maxLength: 200 })),
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 })),
  max_display_count: Type.Optional(Type.Integer({ minimum: 10, maximum: 200 })),
});
export type LogSearchQuery = Static<typeof LogSearchQuery>;

const NullableString = Type.Union([Type.String(), Type.Null()]);

/** One log row; `created_at` is ISO 8601 with the deployment zone's offset (README "Times"). */
export const LogSearchRow = Type.Object({
  id: Type.Integer(),
  created_at: Type.String(),
  source: Type.String(),
  level: Type.String(),
  type: Type.String(),
  module: Type.String(),
  path: Type.String(),
  location: Type.String(),
  details: Type.String(),
  login_id: NullableString,
  actor: Type.Union([Type.Integer(), Type.Null()]),
  ip: NullableString,
});
export type LogSearchRow = Static<typeof LogSearchRow>;

export const LogSearchResult = Type.Object({
  count: Type.Integer(),
  page_count: Type.Integer(),
  page: Type.Integer(),
  list: Type.Array(LogSearchRow),
});
export type LogSearchResult = Static<typeof LogSearchResult>;
