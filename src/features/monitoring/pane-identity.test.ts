import { describe, expect, it } from 'vitest';
import { AI_AUTH_STATUS } from '@contract/constants/ai-auth';
import { TESTER_STATUS } from '@contract/constants/tester';
import { identityCheckOf } from '../../api/checker';
import { paneIdentityState } from './pane-identity';

const pane = (over: Partial<Parameters<typeof paneIdentityState>[0]> = {}) => ({
  auth: 'none' as const,
  identityCheck: 'ai' as const,
  aiAuthStatus: null,
  testerStatus: TESTER_STATUS.matched,
  ...over,
});

describe('who checks a sitting’s identity (its start-up parameters)', () => {
  it('is nobody with is_auth 0, the AI with is_ai_auth 1 or unset, a checker with is_ai_auth 0', () => {
    expect(identityCheckOf({ is_auth: 0 })).toBe('none');
    expect(identityCheckOf({ is_auth: '0', is_ai_auth: 1 })).toBe('none');
    expect(identityCheckOf({ is_auth: 1, is_ai_auth: 1 })).toBe('ai');
    expect(identityCheckOf({})).toBe('ai');
    expect(identityCheckOf(null)).toBe('ai');
    expect(identityCheckOf({ is_auth: 1, is_ai_auth: 0 })).toBe('checker');
    expect(identityCheckOf({ is_ai_auth: '0' })).toBe('checker');
  });
});

describe('what a pane says of the identity', () => {
  it('says what the checker’s own check says, whoever else checks', () => {
    expect(paneIdentityState(pane({ auth: 'accepted', aiAuthStatus: AI_AUTH_STATUS.review }))).toBe(
      'accepted',
    );
    expect(paneIdentityState(pane({ auth: 'rejected', identityCheck: 'none' }))).toBe('rejected');
    expect(paneIdentityState(pane({ auth: 'authenticating', aiAuthStatus: AI_AUTH_STATUS.manual }))).toBe(
      'authenticating',
    );
  });

  it('says a sitting without an identity check has none, even in the exam', () => {
    expect(paneIdentityState(pane({ identityCheck: 'none', testerStatus: TESTER_STATUS.examing }))).toBe(
      'notRequired',
    );
  });

  it('never calls an examinee the AI let through "before the check", nor one it could not confirm "confirmed"', () => {
    const examing = { testerStatus: TESTER_STATUS.examing };
    expect(paneIdentityState(pane({ ...examing, aiAuthStatus: AI_AUTH_STATUS.passed }))).toBe('aiPassed');
    expect(paneIdentityState(pane({ ...examing, aiAuthStatus: AI_AUTH_STATUS.review }))).toBe('aiReview');
    // Past the check before its result is read.
    expect(paneIdentityState(pane({ ...examing }))).toBe('aiUnknown');
    expect(paneIdentityState(pane({ aiAuthStatus: AI_AUTH_STATUS.inProgress }))).toBe('aiChecking');
    expect(paneIdentityState(pane())).toBe('none');
  });

  it('leaves a sitting the AI handed over (or a checker’s sitting) to the checker: before the check until asked', () => {
    expect(paneIdentityState(pane({ aiAuthStatus: AI_AUTH_STATUS.manual }))).toBe('none');
    expect(paneIdentityState(pane({ identityCheck: 'checker', testerStatus: TESTER_STATUS.examing }))).toBe(
      'none',
    );
  });
});
