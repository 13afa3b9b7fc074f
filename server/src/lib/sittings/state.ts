import { TESTER_STATUS } from '../../../../contract/tester';

/** Who asks for a tester state change (decides which transitions are open to them). */
export type StatusChanger = 'tester' | 'checker' | 'admin' | 'system';

/**
 * Allowed tester state transitions. spec §4 lists the states (0 none … 7 finish exam) but not the
 * transitions, so this table is ours:
 *
 * | from | to | note |
 * |---|---|---|
 * | 1 login | 2 matched | a matching exists |
 * | 2 matched | 3 identificated | identity accepted (checker, or the AI flow) |
 * | 1 login | 3 identificated | AI flow without a checker (server only) |
 * | 1, 2 | 4 before exam | only when identity checking is off (`is_auth` 0) |
 * | 3 | 4 before exam | |
 * | 4 | 5 examing | |
 * | 5 | 6 interruption | |
 * | 6 | 5 examing | resume |
 * | 5, 6 | 7 finish exam | |
 *
 * The same state again is a no-op. Nothing leaves 7 (a new login opens a new sitting).
 */
const TRANSITIONS: Readonly<Record<number, readonly number[]>> = {
  [TESTER_STATUS.none]: [TESTER_STATUS.login],
  [TESTER_STATUS.login]: [TESTER_STATUS.matched, TESTER_STATUS.identificated, TESTER_STATUS.beforeExam],
  [TESTER_STATUS.matched]: [TESTER_STATUS.identificated, TESTER_STATUS.beforeExam],
  [TESTER_STATUS.identificated]: [TESTER_STATUS.beforeExam],
  [TESTER_STATUS.beforeExam]: [TESTER_STATUS.examing],
  [TESTER_STATUS.examing]: [TESTER_STATUS.interruptionExam, TESTER_STATUS.finishExam],
  [TESTER_STATUS.interruptionExam]: [TESTER_STATUS.examing, TESTER_STATUS.finishExam],
  [TESTER_STATUS.finishExam]: [],
};

const NAMES: Readonly<Record<number, string>> = {
  0: 'none',
  1: 'login',
  2: 'matched',
  3: 'identificated',
  4: 'before exam',
  5: 'examing',
  6: 'interruption exam',
  7: 'finish exam',
};

/** Human-readable name of a tester state, for messages. */
export function statusName(s: number): string {
  return `${s} (${NAMES[s] ?? 'unknown'})`;
}

/** What the sitting says about identity checking, used by the transition rules. */
export interface TransitionContext {
  /** Start-up `is_auth`: 1 identity must be checked (default), 0 not. */
  isAuth: boolean;
  /** A live matching row exists for the tester. */
  matched: boolean;
  /** The tester's identity was rejected (tests.rejected = 1). */
  rejected: boolean;
}

/** Outcome of {@link checkTransition}: ok, or the reason it is refused. */
export type TransitionCheck =
  { ok: true; noop: boolean } | { ok: false; reason: string; forbidden?: boolean };

/**
 * Decides whether `by` may move a sitting from `from` to `to`. A refusal with `forbidden` means the
 * transition exists but this changer may not make it (answer 403); otherwise it is an invalid transition
 * (answer 409 `invalid_transition`).
 */
export function checkTransition(
  from: number,
  to: number,
  by: StatusChanger,
  ctx: TransitionContext,
): TransitionCheck {
  if (from === to) return { ok: true, noop: true };
  const allowed = TRANSITIONS[from] ?? [];
  if (!allowed.includes(to)) {
    return { ok: false, reason: `A tester cannot go from ${statusName(from)} to ${statusName(to)}.` };
  }
  if (to === TESTER_STATUS.matched && !ctx.matched) {
    return { ok: false, reason: 'The tester is not matched to a checker.' };
  }
  if (to === TESTER_STATUS.identificated) {
    // spec §4: identity is accepted by a checker, or by the AI flow (server side) — never self-declared.
    if (by === 'tester') {
      return { ok: false, forbidden: true, reason: 'A tester cannot mark its own identity as checked.' };
    }
    if (ctx.rejected) return { ok: false, reason: 'The identity was rejected; lift the rejection first.' };
    if (from === TESTER_STATUS.login && by !== 'system') {
      return {
        ok: false,
        reason: `A tester cannot go from ${statusName(from)} to ${statusName(to)} without a matching.`,
      };
    }
  }
  if (to === TESTER_STATUS.beforeExam && from !== TESTER_STATUS.identificated && ctx.isAuth) {
    return { ok: false, reason: 'Identity must be checked before the exam (is_auth is on).' };
  }
  return { ok: true, noop: false };
}

/** Examinee log event (spec §4) written when a sitting enters a state, if any. */
export function eventForStatus(from: number, to: number): string | null {
  if (to === TESTER_STATUS.matched) return 'matched';
  if (to === TESTER_STATUS.examing && from === TESTER_STATUS.interruptionExam) return 'exam_resume';
  if (to === TESTER_STATUS.identificated) return 'authenticated';
  if (to === TESTER_STATUS.examing) return 'exam_start';
  if (to === TESTER_STATUS.interruptionExam) return 'exam_interruption';
  if (to === TESTER_STATUS.finishExam) return 'exam_end';
  if (to === TESTER_STATUS.beforeExam) return 'before_exam';
  return null;
}
