import { AI_AUTH_PROCESS, AI_AUTH_STATUS, AI_FAILED_MODE, type AiAuthError } from '../../contract/ai-auth';
import { TESTER_STATUS } from '../../contract/tester';
import type { FaceVerdict, IdVerdict } from '../src/lib/ai-provider';
import { decideAttempt, type AiAuthState, type PhotoKind } from '../src/lib/ai-auth/decision';
import type { AiAuthPolicy } from '../src/lib/ai-auth/policy';

// The identity check's state machine alone: no database, no HTTP, no AI. The route tests (ai-auth.test.ts)
// check the same rules end to end; these walk every branch of the decision with exact counters and texts.

const POLICY: AiAuthPolicy = {
  enabled: true,
  idCardRequired: true,
  face: 3,
  idCard: 3,
  all: 5,
  nameMatch: 80,
  fallback: AI_FAILED_MODE.manual,
};

const START: AiAuthState = {
  status: AI_AUTH_STATUS.inProgress,
  process: AI_AUTH_PROCESS.face,
  faceRetry: 0,
  idCardRetry: 0,
  allRetry: 0,
  faceKey: null,
  idCardKey: null,
};

/** The state once the face photo was accepted (the ID card is next). */
const AT_CARD: AiAuthState = { ...START, process: AI_AUTH_PROCESS.idCard, faceKey: 'images/face-ok' };

function decide(
  kind: PhotoKind,
  verdict: FaceVerdict | IdVerdict,
  o: { state?: AiAuthState; policy?: Partial<AiAuthPolicy>; testerStatus?: number } = {},
) {
  return decideAttempt({
    state: o.state ?? (kind === 'face' ? START : AT_CARD),
    policy: { ...POLICY, ...o.policy },
    kind,
    verdict,
    imageKey: 'images/new',
    testerStatus: o.testerStatus ?? TESTER_STATUS.matched,
  });
}

const error = (code: AiAuthError['code'], message: string, remaining: number, limit: number) => ({
  code,
  message,
  remaining,
  limit,
});

describe('decideAttempt: the face photo', () => {
  it('accepted with an ID card to follow: the card is next, the photo becomes the head shot', () => {
    const d = decide('face', { outcome: 'ok', scores: { face: 0.97 } });
    expect(d.ok).toBe(true);
    expect(d.error).toBeNull();
    expect(d.state).toEqual({ ...START, process: AI_AUTH_PROCESS.idCard, faceKey: 'images/new' });
    expect(d.effect).toEqual({ kind: 'head_shot', key: 'images/new' });
    expect(d.testerStatus).toBe(TESTER_STATUS.matched);
    expect(d.message).toEqual({ code: 'accepted', text: 'Face photo accepted.' });
    expect(d.record).toEqual({ outcome: 'ok', scores: { face: 0.97 }, reason: '' });
  });

  it('accepted without an ID card: the check passes and the sitting is identified', () => {
    const d = decide('face', { outcome: 'ok' }, { policy: { idCardRequired: false } });
    expect(d.state.status).toBe(AI_AUTH_STATUS.passed);
    expect(d.state.process).toBe(AI_AUTH_PROCESS.done);
    expect(d.testerStatus).toBe(TESTER_STATUS.identificated);
    expect(d.effect).toEqual({ kind: 'identified', passed: true, faceKey: 'images/new', idCardKey: null });
  });

  it('a pass from tester state 1 (no checker yet) still identifies: the AI flow needs no matching', () => {
    const d = decide('face', { outcome: 'ok' }, { policy: { idCardRequired: false }, testerStatus: 1 });
    expect(d.testerStatus).toBe(TESTER_STATUS.identificated);
    expect(d.effect.kind).toBe('identified');
  });

  it('a pass the tester state can no longer take changes the check only, not the sitting', () => {
    const d = decide(
      'face',
      { outcome: 'ok' },
      { policy: { idCardRequired: false }, testerStatus: TESTER_STATUS.examing },
    );
    expect(d.state.status).toBe(AI_AUTH_STATUS.passed);
    expect(d.testerStatus).toBe(TESTER_STATUS.examing);
    expect(d.effect).toEqual({ kind: 'none' });
  });

  it('refused: one face retry and one overall retry are counted, with the retakes left', () => {
    const d = decide('face', { outcome: 'rejected', reason: 'no_face' });
    expect(d.ok).toBe(false);
    expect(d.state).toEqual({ ...START, faceRetry: 1, allRetry: 1 });
    expect(d.error).toEqual(
      error('face_not_recognised', 'The face could not be recognised; retake the photo.', 2, 3),
    );
    expect(d.effect).toEqual({ kind: 'none' });
    expect(d.record).toEqual({ outcome: 'rejected', scores: {}, reason: 'no_face' });
    expect(d.message).toEqual({
      code: 'face_not_recognised',
      text: 'The face could not be recognised; retake the photo.',
    });
  });

  it('refused for the last time: the face limit hands over to a checker (fallback 1)', () => {
    const d = decide('face', { outcome: 'rejected' }, { state: { ...START, faceRetry: 2, allRetry: 2 } });
    expect(d.state.status).toBe(AI_AUTH_STATUS.manual);
    expect(d.state.faceRetry).toBe(3);
    expect(d.error).toEqual(
      error(
        'retry_limit_exceeded',
        'The retry limit was reached. Identity will be checked by a monitor instead.',
        0,
        3,
      ),
    );
    expect(d.effect).toEqual({ kind: 'manual', code: 'retry_limit_exceeded' });
    expect(d.testerStatus).toBe(TESTER_STATUS.matched);
  });

  it('the overall limit counts across kinds: reached by a face refusal, it names the overall limit', () => {
    const d = decide(
      'face',
      { outcome: 'rejected' },
      { state: { ...START, faceRetry: 1, idCardRetry: 2, allRetry: 4 } },
    );
    expect(d.state.allRetry).toBe(5);
    expect(d.error?.limit).toBe(5);
    expect(d.state.status).toBe(AI_AUTH_STATUS.manual);
  });
});

describe('decideAttempt: the ID card', () => {
  it('accepted with a name match at the rate: the check passes with both photos and the rate', () => {
    const d = decide('id_card', { outcome: 'ok', nameMatch: 80.4, scores: { similarity: 0.8 } });
    expect(d.ok).toBe(true);
    expect(d.nameMatch).toBe(80);
    expect(d.state).toEqual({
      ...AT_CARD,
      status: AI_AUTH_STATUS.passed,
      process: AI_AUTH_PROCESS.done,
      idCardKey: 'images/new',
    });
    expect(d.effect).toEqual({
      kind: 'identified',
      passed: true,
      faceKey: 'images/face-ok',
      idCardKey: 'images/new',
    });
    expect(d.testerStatus).toBe(TESTER_STATUS.identificated);
    expect(d.record.scores).toEqual({ similarity: 0.8, name_match: 80 });
    expect(d.message).toEqual({ code: 'accepted', text: 'ID card accepted.' });
  });

  it('accepted when no name could be read (no rate to hold it to)', () => {
    const d = decide('id_card', { outcome: 'ok' });
    expect(d.ok).toBe(true);
    expect(d.nameMatch).toBeNull();
    expect(d.record.scores).toEqual({});
  });

  it('the face matches but the name is below the rate: start again from the face photo', () => {
    const d = decide('id_card', { outcome: 'ok', nameMatch: 79.4 });
    expect(d.ok).toBe(false);
    expect(d.record.outcome).toBe('name_mismatch');
    expect(d.state).toEqual({ ...AT_CARD, process: AI_AUTH_PROCESS.face, allRetry: 1 });
    expect(d.error).toEqual(
      error(
        'person_not_confirmed',
        'It could not be confirmed that you are the person; start again from the face photo.',
        4,
        5,
      ),
    );
    expect(d.effect).toEqual({ kind: 'none' });
  });

  it('another person: the same, with the verdict kept in the record', () => {
    const d = decide('id_card', { outcome: 'mismatch', reason: 'face_distance' });
    expect(d.record).toEqual({ outcome: 'mismatch', scores: {}, reason: 'face_distance' });
    expect(d.state.process).toBe(AI_AUTH_PROCESS.face);
    expect(d.state.idCardRetry).toBe(0);
    expect(d.error?.code).toBe('person_not_confirmed');
  });

  it('unreadable: one ID-card retry and one overall retry, the card is asked again', () => {
    const d = decide('id_card', { outcome: 'unreadable' });
    expect(d.state).toEqual({ ...AT_CARD, idCardRetry: 1, allRetry: 1 });
    expect(d.error).toEqual(
      error('id_card_not_recognised', 'The ID card could not be recognised; retake the photo.', 2, 3),
    );
  });

  it('unreadable for the last time: the ID-card limit is the one named', () => {
    const d = decide(
      'id_card',
      { outcome: 'unreadable' },
      { state: { ...AT_CARD, idCardRetry: 2, allRetry: 2 } },
    );
    expect(d.error?.code).toBe('retry_limit_exceeded');
    expect(d.error?.limit).toBe(3);
    expect(d.state.status).toBe(AI_AUTH_STATUS.manual);
  });

  it('keeps the stored reason short', () => {
    const d = decide('id_card', { outcome: 'unreadable', reason: 'x'.repeat(100) });
    expect(d.record.reason).toBe('x'.repeat(64));
  });
});

describe('decideAttempt: when the AI cannot judge, and the fallbacks', () => {
  it('an unavailable AI hands over at once, whatever the counters, and counts no retry', () => {
    const d = decide('face', { outcome: 'unavailable', reason: 'provider_error' });
    expect(d.state).toEqual({ ...START, status: AI_AUTH_STATUS.manual });
    expect(d.error).toEqual(
      error(
        'ai_unavailable',
        'The AI identity check is unavailable. Identity will be checked by a monitor instead.',
        0,
        3,
      ),
    );
    expect(d.effect).toEqual({ kind: 'manual', code: 'ai_unavailable' });
    expect(d.record.outcome).toBe('unavailable');
  });

  it('on an ID card, an unavailable AI names the ID-card limit and reads no name', () => {
    const d = decide('id_card', { outcome: 'unavailable', nameMatch: 10 }, { policy: { idCard: 4 } });
    expect(d.error?.limit).toBe(4);
    expect(d.nameMatch).toBeNull();
    expect(d.state.process).toBe(AI_AUTH_PROCESS.idCard);
  });

  it('fallback 0: a forced logout', () => {
    const d = decide('face', { outcome: 'unavailable' }, { policy: { fallback: AI_FAILED_MODE.logout } });
    expect(d.state.status).toBe(AI_AUTH_STATUS.logout);
    expect(d.error?.message).toBe('The AI identity check is unavailable. You have been logged out.');
    expect(d.effect).toEqual({ kind: 'forced_logout', code: 'ai_unavailable' });
    expect(d.testerStatus).toBe(TESTER_STATUS.matched);
  });

  it('fallback 2: continue with the last photo for a manager’s review, and the sitting is identified', () => {
    const d = decide(
      'id_card',
      { outcome: 'unreadable' },
      { state: { ...AT_CARD, idCardRetry: 2, allRetry: 2 }, policy: { fallback: AI_FAILED_MODE.continue } },
    );
    expect(d.state.status).toBe(AI_AUTH_STATUS.review);
    expect(d.state.idCardKey).toBe('images/new');
    expect(d.error?.message).toBe(
      'The retry limit was reached. You may continue to the exam; a manager will review your photos later.',
    );
    expect(d.effect).toEqual({
      kind: 'identified',
      passed: false,
      faceKey: 'images/face-ok',
      idCardKey: 'images/new',
    });
    expect(d.testerStatus).toBe(TESTER_STATUS.identificated);
  });

  it('fallback 2 on a face photo keeps that photo as the face', () => {
    const d = decide('face', { outcome: 'unavailable' }, { policy: { fallback: AI_FAILED_MODE.continue } });
    expect(d.state.faceKey).toBe('images/new');
    expect(d.state.idCardKey).toBeNull();
  });

  it('leaves the state it was given untouched', () => {
    const state = { ...START, faceRetry: 1, allRetry: 1 };
    const copy = { ...state };
    decide('face', { outcome: 'rejected' }, { state });
    expect(state).toEqual(copy);
  });
});
