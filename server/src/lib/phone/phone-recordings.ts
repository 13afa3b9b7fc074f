import type { StreamKind } from '../../../../contract/constants/wider-view';
import type { Db } from '../../db/db';
import { ApiError } from '../api-error';
import type { AuthContext } from '../app-types';
import { phoneSittingOpen } from './phone-camera';

/**
 * Who records which stream of a sitting (README "Phone as a second camera"): the paired phone records its own
 * sitting's `phone` stream and nothing else; the examinee records every other stream and never the phone's, so
 * neither can write, extend or complete the other's recordings. A phone session is recognised by its bound
 * sitting (`AuthContext.phoneTestId`).
 */

const isPhone = (auth: AuthContext): auth is AuthContext & { phoneTestId: number } =>
  auth.phoneTestId !== undefined && auth.phoneTestId !== null;

const phoneOnly = () =>
  new ApiError(403, 'forbidden', "A paired phone records only its own camera (stream 'phone').");
const notTheExaminees = () =>
  new ApiError(
    403,
    'forbidden',
    "The phone's stream is recorded by the paired phone itself, with its own session.",
  );

/**
 * The stream a recording call is about (`stream` as the request names it; the examinee's default is the
 * camera): 403 when the caller may not record it.
 */
export function recordableStream(auth: AuthContext, stream: StreamKind | undefined): StreamKind {
  if (isPhone(auth)) {
    if (stream !== 'phone') throw phoneOnly();
    return stream;
  }
  const s = stream ?? 'camera';
  if (s === 'phone') throw notTheExaminees();
  return s;
}

/**
 * 403 unless the caller may use this recording (fresh credentials, completion, recovery): a phone only its own
 * sitting's phone recordings, the examinee only its own recordings of the other streams.
 */
export function assertRecordCaller(
  auth: AuthContext,
  rec: { test_id: number | string; tester_id: number | string; stream: StreamKind },
): void {
  if (isPhone(auth)) {
    if (Number(rec.test_id) !== auth.phoneTestId || rec.stream !== 'phone') throw phoneOnly();
    return;
  }
  if (Number(rec.tester_id) !== auth.userId)
    throw new ApiError(403, 'forbidden', 'This recording belongs to another tester.');
  if (rec.stream === 'phone') throw notTheExaminees();
}

/**
 * A phone starts a recording only in its own sitting while that is the examinee's open sitting (`openTestId`)
 * and open as the phone sees it (not kicked, not logged out): else 409 `no_open_sitting`. Its session outlives
 * the examinee's logout, so the sitting's row alone does not say it.
 */
export async function assertPhoneSittingOpen(db: Db, auth: AuthContext, openTestId: number): Promise<void> {
  if (!isPhone(auth)) return;
  if (Number(openTestId) !== auth.phoneTestId || !(await phoneSittingOpen(db, auth.phoneTestId)))
    throw new ApiError(
      409,
      'no_open_sitting',
      "The phone's sitting is over; its camera is no longer recorded.",
    );
}

/**
 * The phone's stream is recorded only when the sitting records at all (`is_record` 1) besides `is_phone_camera`:
 * a sitting that records nothing does not record the phone either (phone/poll.php then says `recording` null).
 */
export function phoneRecordingOff(stream: StreamKind, isRecord: number): boolean {
  return stream === 'phone' && isRecord !== 1;
}
