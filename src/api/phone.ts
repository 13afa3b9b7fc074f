import type { ChannelStatus, PhoneView as WirePhoneView } from '@contract/matching';
import type {
  PhoneCamera,
  PhoneLeaveResult,
  PhonePairResult,
  PhonePairingResult,
  PhonePollResult,
} from '@contract/phone';
import type { ClientPart, RecordingCredentials as WireCredentials } from '@contract/recording';
import { camelize, type Camelize } from '../lib/case';
import { call, sendOnUnload } from './client';
import type { SignalingChannel } from './matching';
import type { RecordingCredentials } from './recording';

/**
 * The examinee's phone as a second camera (README "Phone as a second camera"): the examinee's page asks for a
 * pairing code; the phone's page spends it and then calls with the phone's own session (never the window's
 * login). The phone's calls are silent: its page handles every failure itself (a 401 there means "this phone
 * was replaced or its exam is over", not "log this window out").
 */

export type { PhoneCamera };

/** The sitting's phone camera as a matching carries it (`Matching.phone`; absent without a phone camera). */
export type PhoneView = Camelize<WirePhoneView>;

/** A new pairing code of the examinee's sitting. */
export interface PairingCode {
  code: string;
  expiresAt: string;
  ttlSeconds: number;
}

/** POST tester/phone_pairing: a new single-use code (the older ones stop working). */
export async function requestPairingCode(): Promise<PairingCode> {
  const r = await call<PhonePairingResult>('tester/phone_pairing', { data: {} });
  return { code: r.code, expiresAt: r.expires_at, ttlSeconds: r.ttl_seconds };
}

/** The phone's session and what its page shows. */
export type PhoneSession = Camelize<PhonePairResult>;

/** POST phone/pair: spends the code from the QR code; 410 `phone_pairing_invalid` when it cannot be spent. */
export async function pairPhone(code: string): Promise<PhoneSession> {
  return camelize(await call<PhonePairResult>('phone/pair', { data: { code }, silent: true }));
}

/** One poll of the phone. */
export interface PhonePollArgs {
  /** The page's publishing run (contract/phone.ts `PhoneRun`); none while it waits for a camera. */
  run?: string;
  channelStatus: ChannelStatus;
  camera: PhoneCamera | null;
  freshCredentials?: boolean;
  stats?: Record<string, unknown>;
}

export type PhonePoll = Omit<Camelize<PhonePollResult>, 'signalingChannel'> & {
  signalingChannel: SignalingChannel | null;
};

/** POST phone/poll with the phone's session. */
export async function pollPhone(token: string, a: PhonePollArgs, signal?: AbortSignal): Promise<PhonePoll> {
  const data: Record<string, unknown> = { channel_status: a.channelStatus };
  if (a.run) data.run = a.run;
  if (a.camera) data.camera = a.camera;
  if (a.freshCredentials) data.fresh_credentials = true;
  if (a.stats) data.stats = a.stats;
  const r = await call<PhonePollResult>('phone/poll', { data, token, signal, silent: true });
  const { signaling_channel: ch, ...rest } = r;
  return { ...camelize(rest), signalingChannel: ch ? camelize(ch) : null };
}

/**
 * POST phone/leave: the phone stops (stop pressed): it is lost at once rather than after its silence, and a poll
 * of `run` still on its way does not bring it back.
 */
export async function leavePhone(token: string, run: string): Promise<boolean> {
  return (await call<PhoneLeaveResult>('phone/leave', { data: { run }, token, silent: true })).left;
}

/** phone/leave from a page that is going away (fetch keepalive; nothing waited for). */
export function leavePhoneOnUnload(token: string, run: string): void {
  sendOnUnload('phone/leave', { run }, token);
}

/** How the phone records (phone/poll `recording`), camelCase. */
export type PhoneRecordingSettings = NonNullable<Camelize<PhonePollResult>['recording']>;

/**
 * POST tester/recording.php method PUT with stream `phone`, as the phone (its own session): starts a recording
 * of the phone's camera and answers its upload credentials.
 */
export async function startPhoneRecording(token: string, mimeType: string): Promise<RecordingCredentials> {
  return camelize(
    await call<WireCredentials>('tester/recording', {
      data: { method: 'PUT', mime_type: mimeType, stream: 'phone' },
      token,
      silent: true,
    }),
  );
}

/** GET tester/recording.php for the phone's recording: fresh upload credentials (S3 said ExpiredToken). */
export async function getPhoneRecordingCredentials(
  token: string,
  recordId: number,
): Promise<RecordingCredentials> {
  return camelize(
    await call<WireCredentials>('tester/recording', {
      method: 'GET',
      params: { record_id: recordId },
      token,
      silent: true,
    }),
  );
}

/** POST tester/recording.php method DELETE for the phone's recording: the server completes the upload. */
export async function endPhoneRecording(token: string, recordId: number, parts: ClientPart[]): Promise<void> {
  const data: Record<string, unknown> = { method: 'DELETE', record_id: recordId };
  if (parts.length > 0) data.parts = parts;
  await call<unknown>('tester/recording', { data, token, silent: true });
}
