// The logs group's constants: log limits, sources and levels.
// Plain values without TypeBox, so the SPA may import them (contract/README.md).

/** The server keeps at most this much of a log entry's details (spec §9: logged detail length 1024). */
export const LOG_DETAILS_MAX = 1024;

/** Largest device_logging payload the server keeps, as JSON text. */
export const DEVICE_LOG_MAX_BYTES = 16 * 1024;

/** Where a log row came from: log_receive, device_logging, the audit trail, or the server itself. */
export const LOG_SOURCES = ['client', 'device', 'audit', 'server'] as const;
export type LogSource = (typeof LOG_SOURCES)[number];
/** Log levels a row can carry. */
export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error'] as const;
