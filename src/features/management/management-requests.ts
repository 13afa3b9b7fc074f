import type { UnknownAction } from '@reduxjs/toolkit';
import type { AppThunk } from '../../app/store';
import { isApiError } from '../../api/api-error';
import { loadingFinished, loadingStarted } from '../layout/layout-slice';
import { confirm, showAlert, type ConfirmArgs } from '../layout/layout-thunks';
import { sectionFailed, sectionRequested, type Failure, type ManagementState } from './management-slice';
import type { FieldErrors } from './management-validation';
import type { TranslationKey } from '../../lib/translation-key';

/**
 * What the management pages' thunks share (management-thunks.ts, short-url-thunks.ts): loading a section,
 * and a failure as the text to show. Apart, so a page loads the thunks of its own screen only.
 */

export type SectionKey = Exclude<keyof ManagementState, 'savedShortUrl'>;

/** The outcome of a form submit: saved, refused by the client rules, or refused by the server. */
export type SubmitResult = { ok: true } | { ok: false; errors?: FieldErrors; failure?: Failure };

/**
 * A server validation error (`result.field`) as a form error next to its field, with the server's message;
 * `formField` maps the request field to the form's (null: not a field of this form).
 */
export function serverFieldErrors(
  e: unknown,
  formField: (field: string) => string | null,
): FieldErrors | null {
  if (!isApiError(e) || e.field === null) return null;
  const name = formField(e.field);
  if (name === null) return null;
  // The SPA's own text of the rule's code; the server's message only for a code the SPA does not know.
  return { [name]: e.serverText ? { key: 'management:failed', text: e.serverText } : { key: e.messageKey } };
}

/**
 * The failure to show: the SPA's text of the server's error code when it knows the code (README "Error
 * codes"), else the screen's key with the server's own message for a refused request.
 */
export function failureOf(e: unknown, messageKey: TranslationKey): Failure {
  if (!isApiError(e)) return { messageKey };
  if (!e.serverText) return { messageKey: e.code === 'network' ? messageKey : e.messageKey };
  if (e.status >= 400 && e.status < 500) return { messageKey, messageText: e.serverText };
  return { messageKey };
}

/** Loads one section with the loading overlay; failures are kept in the section. */
export const load =
  <T>(
    key: SectionKey,
    fetch: () => Promise<T>,
    done: (v: T) => { type: string },
    failKey: TranslationKey,
  ): AppThunk<Promise<void>> =>
  async (dispatch) => {
    dispatch(sectionRequested(key));
    dispatch(loadingStarted());
    try {
      dispatch(done(await fetch()) as UnknownAction);
    } catch (e) {
      dispatch(sectionFailed({ key, failure: failureOf(e, failKey) }));
    } finally {
      dispatch(loadingFinished());
    }
  };

/** An error as the alert's text: the server's message for a refused request, else the SPA's. */
export function textOf(e: unknown): { messageText: string } | { messageKey: TranslationKey } {
  if (!isApiError(e)) return { messageKey: 'management:failed' };
  if (!e.serverText) return { messageKey: e.messageKey };
  return e.status >= 400 && e.status < 500
    ? { messageText: e.serverText }
    : { messageKey: 'management:failed' };
}

/**
 * A management action on one row after a confirmation: asks (`ask`), runs `act` if confirmed, says how it went (a
 * success alert when `doneKey` is given; an error alert titled `failedTitleKey`, with the server's text), and
 * reloads the list (`reload`) either way.
 */
export const confirmedAction =
  (opts: {
    ask: ConfirmArgs;
    act: () => Promise<unknown>;
    doneKey?: TranslationKey;
    failedTitleKey?: TranslationKey;
    reload: () => AppThunk<Promise<void>>;
  }): AppThunk<Promise<void>> =>
  async (dispatch) => {
    if (!(await dispatch(confirm(opts.ask)))) return;
    try {
      await opts.act();
      if (opts.doneKey) await dispatch(showAlert({ type: 'success', messageKey: opts.doneKey }));
    } catch (e) {
      await dispatch(
        showAlert({
          type: 'error',
          ...(opts.failedTitleKey ? { titleKey: opts.failedTitleKey } : {}),
          ...textOf(e),
        }),
      );
    }
    await dispatch(opts.reload());
  };
