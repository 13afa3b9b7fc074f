import { AI_AUTH_STATUS } from '@contract/constants/ai-auth';
import { TESTER_STATUS } from '@contract/constants/tester';
import type { Pane } from './monitoring-slice';

/**
 * What a pane says of the examinee's identity: the checker's own check (asked for, accepted, rejected) as the
 * markers tell of it; else, for a sitting without an identity check, that it has none; for a sitting the AI
 * checks, where the AI's check stands (tester/detail `ai_auth`); else that the check has not been asked for.
 */
export type PaneIdentityState =
  | 'none'
  | 'authenticating'
  | 'accepted'
  | 'rejected'
  | 'notRequired'
  | 'aiChecking'
  | 'aiPassed'
  | 'aiReview'
  | 'aiUnknown';

/**
 * The pane's identity state. A checker deciding pass or fail reads it: an examinee the AI let through is not
 * "before the identity check", and one the AI could not confirm (continued for the manager's review) is not
 * "confirmed". A sitting the AI handed to a checker (`manual`) is the checker's to check, as any other.
 */
export function paneIdentityState(
  p: Pick<Pane, 'auth' | 'identityCheck' | 'aiAuthStatus' | 'testerStatus'>,
): PaneIdentityState {
  if (p.auth !== 'none') return p.auth;
  if (p.identityCheck === 'none') return 'notRequired';
  if (p.identityCheck === 'checker' || p.aiAuthStatus === AI_AUTH_STATUS.manual) return 'none';
  if (p.aiAuthStatus === AI_AUTH_STATUS.passed) return 'aiPassed';
  if (p.aiAuthStatus === AI_AUTH_STATUS.review) return 'aiReview';
  // Past the identity check with no AI result read (tester/detail is read again as the sitting passes it).
  if (p.testerStatus >= TESTER_STATUS.identificated) return 'aiUnknown';
  return p.aiAuthStatus === AI_AUTH_STATUS.inProgress ? 'aiChecking' : 'none';
}
