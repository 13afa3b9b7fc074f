import type { AppThunk } from '../../app/store';
import { forceLogout, listLogins } from '../../api/logins';
import { confirm, showAlert } from '../layout/layout-thunks';
import {
  loginsLoaded,
  loginsQueryChanged,
  selectManagement,
  type LoginsQueryState,
} from './management-slice';
import { load, textOf } from './management-requests';

/** The /logins page's thunks: the list of who is logged in, and a forced logout. */

/** Loads the logins list after applying a filter, sort or page change. */
export const loginsRequested =
  (patch: Partial<LoginsQueryState> = {}): AppThunk<Promise<void>> =>
  async (dispatch, getState) => {
    dispatch(loginsQueryChanged(patch));
    const q = selectManagement(getState()).logins.query;
    await dispatch(
      load(
        'logins',
        async () => {
          const r = await listLogins(q);
          return { list: r.list, count: r.count, pageCount: r.pageCount };
        },
        loginsLoaded,
        'management:loadFailed',
      ),
    );
  };

/** Forced logout of one user after a confirmation. */
export const forceLogoutRequested =
  (userId: number, loginId: string): AppThunk<Promise<void>> =>
  async (dispatch) => {
    const ok = await dispatch(
      confirm({ messageKey: 'management:logins.confirmForceLogout', messageValues: { loginId } }),
    );
    if (!ok) return;
    try {
      await forceLogout(userId);
      await dispatch(showAlert({ type: 'success', messageKey: 'management:logins.forceLogoutDone' }));
    } catch (e) {
      await dispatch(
        showAlert({ type: 'error', titleKey: 'management:logins.forceLogoutFailed', ...textOf(e) }),
      );
    }
    await dispatch(loginsRequested());
  };
