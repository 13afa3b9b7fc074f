import { isApiError } from '../../api/api-error';
import type { TranslationKey } from '../../lib/translation-key';
import type { Failure } from './examinees-slice';

/**
 * The failure to show: the screen's own key, then the SPA's text for the server's error code; the server's
 * own message only for a code the SPA does not know (README "Error codes").
 */
export function failureOf(e: unknown, messageKey: TranslationKey): Failure {
  if (!isApiError(e)) return { messageKey };
  return {
    messageKey,
    ...(e.serverText ? { messageText: e.serverText } : { detailKey: e.messageKey }),
  };
}
