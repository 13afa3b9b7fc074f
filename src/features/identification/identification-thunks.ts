import type { AppThunk, AppThunkDispatch } from '../../app/store';
import { navigateTo } from '../../app/navigation';
import { MESSAGE_COMMANDS } from '@contract/constants/messages';
import { isApiError, NETWORK_ERROR_STATUS } from '../../api/api-error';
import { postMessage } from '../../api/messages';
import { networkErrorOccurred } from '../live/live-slice';
import {
  identityCheckRequested,
  stepReached,
  testerDetailLoaded,
  testerPageEntered,
  selectTester,
} from '../tester/tester-slice';
import { getTesterDetail, postHeadShot } from '../../api/tester';
import {
  monitorCheckFailed,
  monitorCheckRejected,
  monitorCheckSending,
  monitorCheckSent,
} from './identification-slice';
import { TESTER_STATUS } from '@contract/constants/tester';
import { href } from '@/config/paths';

/** tester/detail: who the examinee is (stored in the tester slice). */
export async function loadDetail(dispatch: AppThunkDispatch) {
  const d = await getTesterDetail();
  dispatch(
    testerDetailLoaded({
      testerId: d.testerId || d.userId,
      status: d.status,
      rejected: d.rejected === 1,
      kicked: d.kicked === 1,
    }),
  );
  return d;
}

export const isNetwork = (e: unknown) => isApiError(e) && e.status === NETWORK_ERROR_STATUS;

/** /identification opened: who am I, rejected already?, transmission and the message poll. */
export const identificationEntered = (): AppThunk<Promise<void>> => async (dispatch) => {
  dispatch(stepReached(3));
  try {
    const d = await loadDetail(dispatch);
    if (d.rejected === 1) dispatch(monitorCheckRejected());
    else if (d.status >= TESTER_STATUS.identificated) {
      navigateTo(href('examining'), { replace: true });
      return;
    }
  } catch (e) {
    if (isNetwork(e)) dispatch(networkErrorOccurred());
    return;
  }
  dispatch(testerPageEntered());
};

/**
 * Sends a head-shot still (JPEG from the camera) with tester/head_shot so the checker sees it beside the
 * live video; returns whether it was stored. A missing frame or a failed upload does not block the check.
 */
export async function uploadHeadShot(): Promise<boolean> {
  try {
    // The still's code loads when the examinee asks for the check.
    const { captureStill } = await import('../../media/devices');
    const still = await captureStill();
    if (!still) return false;
    await postHeadShot(still.image, still.contentType);
    return true;
  } catch {
    return false;
  }
}

/** "Ready": the examinee placed the ID card and asks the monitor to check (AUTHENTICATING). */
export const authenticationRequested = (): AppThunk<Promise<void>> => async (dispatch, getState) => {
  const testerId = selectTester(getState()).testerId;
  if (testerId === null) return;
  dispatch(monitorCheckSending());
  // The checker judges the examinee against a head shot: upload a still first (best effort).
  await uploadHeadShot();
  try {
    await postMessage({
      testerId,
      messageType: 1,
      message: MESSAGE_COMMANDS.authenticating,
      kind: 'command',
    });
    dispatch(identityCheckRequested());
    dispatch(monitorCheckSent());
  } catch (e) {
    if (isNetwork(e)) dispatch(networkErrorOccurred());
    dispatch(
      monitorCheckFailed(isNetwork(e) ? 'identification:errors.network' : 'identification:errors.send'),
    );
  }
};
