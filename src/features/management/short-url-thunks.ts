import type { AppThunk } from '../../app/store';
import { deleteShortUrl, listShortUrls, saveShortUrl } from '../../api/shorten-url';
import { loadingFinished, loadingStarted } from '../layout/layout-slice';
import { shortUrlSaved, shortUrlsLoaded } from './management-slice';
import {
  confirmedAction,
  failureOf,
  load,
  serverFieldErrors,
  type SubmitResult,
} from './management-requests';
import { PARAM_FIELDS, shortUrlPayload, validateShortUrl, type ShortUrlForm } from './short-url-fields';

/** The short-URL pages' thunks (/create-shorturl, /create-shorturl-list): list, save, delete. */

const isParamField = (f: string) => PARAM_FIELDS.some(([name]) => name === f);

export const shortUrlsRequested = (): AppThunk<Promise<void>> =>
  load('shortUrls', listShortUrls, shortUrlsLoaded, 'management:loadFailed');

/** Saves a short URL (insert, or update with `id`); the saved row's working URL is kept for display. */
export const shortUrlSubmitted =
  (form: ShortUrlForm, id?: number): AppThunk<Promise<SubmitResult>> =>
  async (dispatch) => {
    const errors = validateShortUrl(form);
    if (Object.keys(errors).length) return { ok: false, errors };
    dispatch(loadingStarted());
    try {
      dispatch(shortUrlSaved(await saveShortUrl(shortUrlPayload(form), id)));
      return { ok: true };
    } catch (e) {
      const fieldErrors = serverFieldErrors(e, (f) =>
        f === 'url_key' ? 'urlKey' : ['actor', 'target'].includes(f) || isParamField(f) ? f : null,
      );
      if (fieldErrors) return { ok: false, errors: fieldErrors };
      return { ok: false, failure: failureOf(e, 'management:shortUrl.saveFailed') };
    } finally {
      dispatch(loadingFinished());
    }
  };

/** Deletes a short URL after a confirmation. */
export const shortUrlDeleted =
  (id: number, urlKey: string): AppThunk<Promise<void>> =>
  (dispatch) =>
    dispatch(
      confirmedAction({
        ask: { messageKey: 'management:shortUrl.confirmDelete', messageValues: { urlKey } },
        act: () => deleteShortUrl(id),
        reload: () => shortUrlsRequested(),
      }),
    );
