/**
 * /env-setting's own effects (spec §2): where a sitting under way continues, the device and popup checks, and
 * Next (the live channel starts, then the identity check the sitting uses). Only /env-setting loads them.
 */
import type { AppThunk } from '../../app/store';
import { navigateTo } from '../../app/navigation';
import type { TesterDetail } from '../../api/tester';
import * as testerApi from '../../api/tester';
import { acquireLocalMedia } from '../../media/devices';
import { checkPopupAllowed } from '../../platform/popup-check';
import { liveStartRequested } from '../live/live-slice';
import {
  devicesChecked,
  envNextFailed,
  envNextStarted,
  envNextSucceeded,
  envResumeChecked,
  envResumeChecking,
  envTermLoadStarted,
  envTermLoaded,
  popupChecked,
  selectTester,
  stepReached,
} from './tester-slice';
import { flag, isNetwork, loadTesterDetail, resumePath } from './tester-thunks';
import { TESTER_STATUS } from '@contract/constants/tester';
import { href } from '@/config/paths';

/** Asks for the camera and microphone (spec §2 camera check, microphone check). */
export const checkDevices = (): AppThunk<Promise<void>> => async (dispatch, getState) => {
  const r = await acquireLocalMedia();
  dispatch(
    devicesChecked({
      camera: r.camera.ok ? null : r.camera.code,
      microphone: r.microphone.ok ? null : r.microphone.code,
    }),
  );
  const t = selectTester(getState());
  if (t.camera === 2 && t.microphone === 2 && t.stepBar === 1) dispatch(stepReached(2));
};

/** The popup-block check of /env-setting (platform/popup-check.ts). */
export const checkPopup = (): AppThunk<Promise<void>> => async (dispatch) => {
  dispatch(popupChecked(checkPopupAllowed()));
};

/**
 * /env-setting opened: who am I — and, for a sitting already under way, straight back to where it was — then
 * the terms, the device and popup checks.
 */
export const envSettingEntered = (): AppThunk<Promise<void>> => async (dispatch, getState) => {
  dispatch(stepReached(1));
  dispatch(envResumeChecking());
  const { termTemplateId, envSettingTerm, lang } = getState().startup.params;
  dispatch(envTermLoadStarted());
  const templateId =
    envSettingTerm !== null && envSettingTerm !== -1 ? envSettingTerm : (termTemplateId ?? -1);
  const term = testerApi
    .getEnvSettingTerm(templateId, lang || 'ja')
    .then((body) => dispatch(envTermLoaded({ body, failed: false })))
    .catch(() => dispatch(envTermLoaded({ body: '', failed: true })));
  const detail = await dispatch(loadTesterDetail()).catch(() => undefined);
  const resume = detail ? resumePath(detail, getState()) : null;
  if (resume) {
    navigateTo(resume, { replace: true });
    return;
  }
  dispatch(envResumeChecked());
  await dispatch(checkDevices());
  await dispatch(checkPopup());
  await term;
};

/**
 * Next on /env-setting: confirms the session, starts transmission (spec §1: the live channel) and goes to
 * the identity check chosen by the sitting (monitor, AI, or none → the exam page). A network error asks
 * the examinee to press Next again (spec §8).
 */
export const envNextPressed = (): AppThunk<Promise<void>> => async (dispatch, getState) => {
  dispatch(envNextStarted());
  let detail: TesterDetail;
  try {
    detail = await dispatch(loadTesterDetail());
  } catch (e) {
    dispatch(envNextFailed(isNetwork(e) ? 'networkError' : 'failed'));
    return;
  }
  const state = getState();
  dispatch(
    liveStartRequested({
      testerId: selectTester(state).testerId ?? detail.testerId,
      matchingTimeout: state.startup.params.matchingTimeout,
    }),
  );
  dispatch(envNextSucceeded());
  const isAuth = flag(detail, state, 'is_auth', 'isAuth');
  const isAiAuth = flag(detail, state, 'is_ai_auth', 'isAiAuth');
  if (detail.status >= TESTER_STATUS.identificated || isAuth === 0) navigateTo(href('examining'));
  else if (isAiAuth === 1) navigateTo(href('identificationAi'));
  else navigateTo(href('identification'));
};
