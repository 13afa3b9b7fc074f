/**
 * Values of the phone camera's contract (contract/phone.ts), without TypeBox, so the SPA imports them as values
 * and no schema code reaches the browser bundle.
 */

/** How long a pairing code may wait before it is scanned (seconds); one use, and a newer code ends it. */
export const PHONE_PAIRING_TTL_SECONDS = 120;

/** A phone silent for this many poll intervals is lost (the screen locked, the battery, the network). */
export const PHONE_STALE_FACTOR = 3;

/** The suffix of the phone's signaling channel: `<the sitting's channel>-phone`. */
export const PHONE_CHANNEL_SUFFIX = '-phone';

/**
 * The phone camera's state for the examinee and the checker: `waiting` no phone paired yet; `connecting` paired,
 * its camera not published yet; `live` publishing; `lost` it stopped answering or left (rescanning reconnects).
 */
export const PHONE_STATES = ['waiting', 'connecting', 'live', 'lost'] as const;
export type PhoneState = (typeof PHONE_STATES)[number];

/** Why a phone was lost: it stopped polling, it said it leaves (page closed, stop pressed), or another replaced it. */
export const PHONE_LOST_REASONS = ['no_response', 'left', 'replaced'] as const;
export type PhoneLostReason = (typeof PHONE_LOST_REASONS)[number];

/** Which camera of the phone publishes: the rear (environment) or the front (user) one. */
export const PHONE_CAMERAS = ['environment', 'user'] as const;
export type PhoneCamera = (typeof PHONE_CAMERAS)[number];
