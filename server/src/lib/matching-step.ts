import { MATCHING_COMMAND, MATCHING_STATUS, type MatchingBody } from '../../../contract/matching';

/** What an examinee's poll decides from of its current matching. */
export interface TesterMatchingState {
  checker_id: number | null;
  matching_status: number;
  matching_command: number;
  checker_command: number;
  tester_retry: number;
}

/** The outcome of one examinee poll for its matching: the new values and what happened. */
export interface TesterPollStep {
  status: number;
  retry: number;
  /** The command the examinee is told now (0 = nothing to do). */
  command: number;
  checkerCommand: number;
  /** The channel was reported open while a checker waited: connected from now on. */
  opening: boolean;
  /** A connected channel was reported closed or failed. */
  closing: boolean;
  /** Failures past the retry limit: the matching ends as invalid. */
  invalid: boolean;
  /** Anything but the poll's liveness changes (the matching row must be written in the poll's transaction). */
  changed: boolean;
}

/**
 * The matching-status rules of an examinee's report (spec §4), as a pure function of the current matching and
 * the report. `open` resets the failure count and, with a checker assigned, connects; `close` disconnects;
 * each `failed`/`error` counts one failure: from `failuresBeforeReset` consecutive failures both sides are
 * told to reset the signaling channel, past `retryLimit` the matching becomes invalid. A pending command is
 * delivered by this poll unless the poll acknowledges a reset it has done (matching_command 1).
 */
export function testerPollStep(
  cur: TesterMatchingState,
  report: Pick<MatchingBody, 'channel_status' | 'matching_command'>,
  limits: { retryLimit: number; failuresBeforeReset: number },
): TesterPollStep {
  const cs = report.channel_status;
  let status = cur.matching_status;
  let retry = cur.tester_retry;
  let checkerCommand = cur.checker_command;
  let command =
    Number(report.matching_command ?? 0) === MATCHING_COMMAND.resetSignalingChannel
      ? MATCHING_COMMAND.none
      : cur.matching_command;
  let opening = false;
  let closing = false;
  let invalid = false;
  if (cs === 'open') {
    retry = 0;
    if (cur.checker_id !== null && status === MATCHING_STATUS.waiting) {
      status = MATCHING_STATUS.connected;
      opening = true;
    }
  } else if (cs === 'close') {
    if (status === MATCHING_STATUS.connected) {
      status = MATCHING_STATUS.waiting;
      closing = true;
    }
  } else if (cs === 'failed' || cs === 'error') {
    retry += 1;
    if (status === MATCHING_STATUS.connected) {
      status = MATCHING_STATUS.waiting;
      closing = true;
    }
    if (retry > limits.retryLimit) {
      invalid = true;
      status = MATCHING_STATUS.invalid;
      command = MATCHING_COMMAND.none;
    } else if (retry >= limits.failuresBeforeReset) {
      command = MATCHING_COMMAND.resetSignalingChannel;
      if (cur.checker_id !== null) checkerCommand = MATCHING_COMMAND.resetSignalingChannel;
    }
  }
  const changed =
    status !== cur.matching_status ||
    retry !== cur.tester_retry ||
    checkerCommand !== cur.checker_command ||
    command !== MATCHING_COMMAND.none ||
    cur.matching_command !== MATCHING_COMMAND.none;
  return { status, retry, command, checkerCommand, opening, closing, invalid, changed };
}
