import type { AppThunk } from '../../app/store';
import { forceLogout, listLogins } from '../../api/logins';
import {
  loginsLoaded,
  loginsQueryChanged,
  selectManagement,
  type LoginsQueryState,
} from './management-slice';
import { confirmedAction, load } from './management-requests';

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
  (dispatch) =>
    dispatch(
      confirmedAction({
        ask: { messageKey: 'management:logins.confirmForceLogout', messageValues: { loginId } },
        act: () => forceLogout(userId),
        doneKey: 'management:logins.forceLogoutDone',
        failedTitleKey: 'management:logins.forceLogoutFailed',
        reload: () => loginsRequested(),
      }),
    );
