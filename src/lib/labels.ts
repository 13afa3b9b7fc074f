import { MESSAGE_COMMANDS, parseCommand } from '@contract/constants/messages';
import { MOVIE_STATUS } from '@contract/constants/recording';
import { TESTER_STATUS } from '@contract/constants/tester';
import { WIDER_VIEW_COMMANDS, WIDER_VIEW_LOG_EVENTS } from '@contract/constants/wider-view';
import type { TranslationKey } from './translation-key';
/**
 * i18n keys (common namespace) of the codes the server sends, so no page shows a bare code: tester states
 * (spec §4, 0–7), record statuses (00–08), cheating levels (0–3), examinee-log events and chat markers.
 * A value outside the lists gets a generic key, never the code itself.
 */

const TESTER_STATUSES = Object.values(TESTER_STATUS);
const RECORD_STATUSES = Object.values(MOVIE_STATUS);
export const CHEATING_LEVELS = [0, 1, 2, 3] as const;
export const EXAMINEE_LOG_EVENTS = [
  'login',
  'relogin',
  'matched',
  'authenticated',
  'before_exam',
  'exam_start',
  'exam_interruption',
  'exam_resume',
  'exam_end',
  'logout',
  'kicked',
  'kick_lifted',
  'disconnect',
  'rejected',
  'rejection_lifted',
  'ai_auth_manual',
  'ai_auth_review',
  'ai_forced_logout',
  'exam_system_login',
  'test_status',
  'exam_status',
  ...WIDER_VIEW_LOG_EVENTS,
  'phone_paired',
  'phone_lost',
  'phone_reconnected',
] as const;
/** Why the phone camera was lost (examinee-log `phone_lost` detail), each with its own sentence. */
const PHONE_LOST_DETAILS = ['no_response', 'left'] as const;
/** The fixed markers of spec §3 ("message received … rejected", plus the marking alert) and the wider view's. */
const CHAT_MARKERS = [...Object.values(MESSAGE_COMMANDS), ...Object.values(WIDER_VIEW_COMMANDS)] as const;

const has = <T extends string | number>(list: readonly T[], v: unknown): v is T =>
  (list as readonly unknown[]).includes(v);

/** Tester state by name; null when the state does not apply (not an examinee). */
export function testerStatusKey(status: number | null | undefined): TranslationKey | null {
  if (status === null || status === undefined) return null;
  return has(TESTER_STATUSES, status) ? `common:testerStatus.${status}` : 'common:testerStatus.0';
}

export function recordStatusKey(code: string): TranslationKey {
  const c = code.trim();
  return has(RECORD_STATUSES, c) ? `common:recordStatus.${c}` : 'common:recordStatus.00';
}

export function cheatingLevelKey(level: number): TranslationKey {
  if (has(CHEATING_LEVELS, level)) return `common:cheatingLevel.${level}`;
  return level > 3 ? 'common:cheatingLevel.3' : 'common:cheatingLevel.0';
}

/** The examinee-log event in words; a lost phone camera says why (its detail). */
export function examineeLogKey(event: string, detail = ''): TranslationKey {
  if (event === 'phone_lost' && has(PHONE_LOST_DETAILS, detail))
    return `common:examineeLog.phone_lost_${detail}`;
  return has(EXAMINEE_LOG_EVENTS, event) ? `common:examineeLog.${event}` : 'common:examineeLog.other';
}

/**
 * A chat line that is a command marker (`ACCEPTED`, `MARKING_ALERT:視線不良`, …) as the key of its sentence
 * and the values it needs; null for an ordinary message.
 */
export function markerText(
  message: string,
  kind: string | undefined,
): { key: TranslationKey; values: Record<string, string> } | null {
  const { command, payload } = parseCommand(message);
  if (has(CHAT_MARKERS, command))
    return { key: `common:markers.${command}`, values: { text: payload ?? '' } };
  if (kind === 'command') return { key: 'common:markers.other', values: {} };
  return null;
}

/**
 * Monitor memo text (spec §5): surrounding quotes (double or single) are stripped; a quoted empty string
 * becomes empty. The reference server strips them already; an API that does not is shown the same.
 */
export function monitorMemo(v: string | null | undefined): string {
  const s = (v ?? '').trim();
  if (s.length >= 2 && ((s.startsWith('"') && s.endsWith('"')) || (s.startsWith("'") && s.endsWith("'"))))
    return s.slice(1, -1);
  return s;
}
