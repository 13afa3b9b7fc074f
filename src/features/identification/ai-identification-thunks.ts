/**
 * The AI identity check (spec §4): the face photo, then the ID photo, each confirmed before its upload, the
 * tries and the fallback when the AI cannot decide. Only /identification-ai loads them.
 */
import type { AppThunk } from '../../app/store';
import { navigateTo } from '../../app/navigation';
import { AI_AUTH_STATUS, AI_FAILED_MODE } from '@contract/constants/ai-auth';
import * as aiApi from '../../api/ai-auth';
import { captureStill } from '../../media/devices';
import { showAlert } from '../layout/layout-thunks';
import { networkErrorOccurred } from '../live/live-slice';
import {
  aiFixedTextsSet,
  aiNoticeChanged,
  aiRetryCounted,
  photoTaken,
  stepReached,
  testerExitRequested,
  testerExited,
  testerPageEntered,
  testerStateChanged,
  type AiFixedText,
  selectTester,
} from '../tester/tester-slice';
import {
  aiAttemptAnswered,
  aiErrorOccurred,
  aiPhaseChanged,
  aiStatusLoaded,
  type AiFallback,
  selectIdentification,
} from './identification-slice';
import { TESTER_STATUS } from '@contract/constants/tester';
import { href } from '@/config/paths';
import { runtimeKey } from '../../lib/translation-key';

import { isNetwork, loadDetail } from './identification-thunks';

/** Spec §4: the AI fixed-text list has 9 items at level 1, 8 at level 2, 4 otherwise. */
export function aiFixedTextCount(level: number): number {
  return level === 1 ? 9 : level === 2 ? 8 : 4;
}

/** The fixed texts of a level; only the first is checked at the start (spec §4). */
export function aiFixedTexts(level: number): AiFixedText[] {
  const n = aiFixedTextCount(level);
  const prefix = level === 1 ? 'l1' : level === 2 ? 'l2' : 'other';
  return Array.from({ length: n }, (_, i) => ({
    // The count per level (aiFixedTextCount) and the JSON's lists are kept in step by the identification tests.
    text: runtimeKey(`identification:ai.fixed.${prefix}.${i + 1}`),
    check: i === 0,
    isError: false,
  }));
}

function fallbackOf(code: number): AiFallback {
  return code === AI_FAILED_MODE.logout ? 'logout' : code === AI_FAILED_MODE.continue ? 'continue' : 'manual';
}

/** The notice for a photo kind, with the placeholders of spec §4 (remaining, limit − 1, limit, failure). */
function notice(kind: 'face' | 'idCard', retry: number, limit: number, failStr: string) {
  return aiNoticeChanged({
    selectedStr: kind === 'face' ? 'identification:ai.kind.face' : 'identification:ai.kind.idCard',
    limite: limit,
    retry,
    failStr,
    noticeType: failStr ? 'caution' : 'info',
  });
}

/** /identification-ai opened: the AI status, limits and fallback from the server. */
export const aiIdentificationEntered = (): AppThunk<Promise<void>> => async (dispatch, getState) => {
  dispatch(stepReached(3));
  try {
    const d = await loadDetail(dispatch);
    if (d.status >= TESTER_STATUS.identificated) {
      navigateTo(href('examining'), { replace: true });
      return;
    }
    dispatch(testerPageEntered());
    const st = await aiApi.getAiStatus();
    const idCardRequired = getState().startup.params.isAiIdcardRequest !== 0;
    dispatch(
      aiStatusLoaded({
        process: st.process,
        status: st.status,
        limits: { face: st.limits.face, idCard: st.limits.idCard, all: st.limits.all },
        retries: { face: st.faceRetry, idCard: st.idCardRetry, all: st.aiAllRetry },
        idCardRequired,
        fallback: fallbackOf(st.fallback),
      }),
    );
    const level = Number(getState().startup.params.aiIdcardType.split(',')[0]) || 0;
    dispatch(aiFixedTextsSet(aiFixedTexts(st.process === 1 ? level : 0)));
    const kind = st.process === 1 ? 'idCard' : 'face';
    const limit = kind === 'face' ? st.limits.face : st.limits.idCard;
    const used = kind === 'face' ? st.faceRetry : st.idCardRetry;
    dispatch(notice(kind, limit - used, limit, ''));
    dispatch(aiRetryCounted(st.aiAllRetry));
    if (st.status > AI_AUTH_STATUS.passed) await dispatch(applyAiFallback(fallbackOf(st.fallback), true));
  } catch (e) {
    dispatch(
      aiErrorOccurred(isNetwork(e) ? 'identification:errors.network' : 'identification:errors.aiStatus'),
    );
  }
};

/** "Take photo": a still from the camera (JPEG via canvas), then "is this photo acceptable?". */
export const aiPhotoTaken = (): AppThunk<Promise<void>> => async (dispatch, getState) => {
  const phase = selectIdentification(getState()).ai.phase;
  const kind = phase === 'idCard' ? 'idCard' : 'face';
  const still = await captureStill();
  if (!still) {
    dispatch(aiErrorOccurred('identification:errors.noCamera'));
    return;
  }
  dispatch(aiErrorOccurred(null));
  dispatch(photoTaken({ kind, dataUrl: still.dataUrl }));
  dispatch(aiPhaseChanged(kind === 'face' ? 'faceConfirm' : 'idCardConfirm'));
};

/** "Retake": back to the camera. */
export const aiRetakeRequested = (): AppThunk<Promise<void>> => async (dispatch, getState) => {
  const phase = selectIdentification(getState()).ai.phase;
  const kind = phase === 'idCardConfirm' ? 'idCard' : 'face';
  dispatch(photoTaken({ kind, dataUrl: null }));
  dispatch(aiPhaseChanged(kind));
};

/** "Register": sends the confirmed photo to ai_auth/face or ai_auth/id_card and follows the answer. */
export const aiPhotoRegistered = (): AppThunk<Promise<void>> => async (dispatch, getState) => {
  const s = getState();
  const kind = selectIdentification(s).ai.phase === 'idCardConfirm' ? 'idCard' : 'face';
  const dataUrl = kind === 'face' ? selectTester(s).identityImage : selectTester(s).idImage;
  if (!dataUrl) return;
  const image = dataUrl.slice(dataUrl.indexOf(',') + 1);
  dispatch(aiPhaseChanged('sending'));
  let r: aiApi.AiAttempt;
  try {
    r = await aiApi.postAiPhoto(kind, { image, contentType: 'image/jpeg' });
  } catch (e) {
    if (isNetwork(e)) dispatch(networkErrorOccurred());
    dispatch(
      aiErrorOccurred(isNetwork(e) ? 'identification:errors.network' : 'identification:errors.aiSend'),
    );
    dispatch(aiPhaseChanged(kind === 'face' ? 'faceConfirm' : 'idCardConfirm'));
    return;
  }
  const st = await aiApi.getAiStatus().catch(() => null);
  const retries = st
    ? { face: st.faceRetry, idCard: st.idCardRetry, all: st.aiAllRetry }
    : selectIdentification(getState()).ai.retries;
  dispatch(aiRetryCounted(retries.all));
  const err = r.error;
  const code = err?.code ?? null;
  // The server's result code names the text (identification:ai.result.<code>).
  const messageKey = code ? runtimeKey(`identification:ai.result.${code}`) : null;
  dispatch(
    aiAttemptAnswered({
      retries,
      messageKey,
      messageValues: {
        remaining: err?.remaining ?? 0,
        limit: err?.limit ?? 0,
        limitMinusOne: Math.max(0, (err?.limit ?? 0) - 1),
      },
      unavailable: code === 'ai_unavailable',
    }),
  );
  if (r.testerStatus) dispatch(testerStateChanged(r.testerStatus));
  if (r.status === AI_AUTH_STATUS.passed) {
    dispatch(aiPhaseChanged('passed'));
    navigateTo(href('examining'));
    return;
  }
  if (r.status === AI_AUTH_STATUS.manual) return void (await dispatch(applyAiFallback('manual')));
  if (r.status === AI_AUTH_STATUS.logout) return void (await dispatch(applyAiFallback('logout')));
  if (r.status === AI_AUTH_STATUS.review) return void (await dispatch(applyAiFallback('continue')));
  // Still in progress: the next photo (ID after an accepted face; face again after a mismatch).
  const next = r.process === 1 ? 'idCard' : 'face';
  if (r.ok && next === 'idCard') {
    const level = Number(getState().startup.params.aiIdcardType.split(',')[0]) || 0;
    dispatch(aiFixedTextsSet(aiFixedTexts(level)));
  } else {
    const base =
      next === 'face' && kind === 'idCard' ? aiFixedTexts(0) : selectTester(getState()).aiFixedTexts;
    dispatch(aiFixedTextsSet(base.map((t, i) => ({ ...t, isError: i === 0 && !r.ok }))));
  }
  const limits = selectIdentification(getState()).ai.limits;
  const limit = next === 'face' ? limits.face : limits.idCard;
  const used = next === 'face' ? retries.face : retries.idCard;
  dispatch(notice(next, Math.max(0, limit - used), limit, messageKey ?? ''));
  dispatch(photoTaken({ kind: next, dataUrl: null }));
  dispatch(aiPhaseChanged(next));
};

/**
 * The configured fallback when the AI check cannot succeed (spec §4): go to monitor authentication,
 * force a logout (kick-out PUT_MYSELF_AI), or continue to the exam with the last photo.
 */
export const applyAiFallback =
  (fallback: AiFallback, silent = false): AppThunk<Promise<void>> =>
  async (dispatch) => {
    dispatch(aiPhaseChanged('fallback'));
    const messageKey = `identification:ai.fallback.${fallback}` as const;
    if (fallback === 'logout') {
      // Forced logout: the server has blocked the sitting. The page says so like a kick-out by a monitor, then
      // leaves with the spec's exit mode "kick out by oneself via AI" (kick_out PUT_MYSELF_AI ends the session).
      const notice = 'identification:ai.forcedOut' as const;
      dispatch(testerExited({ exit: 'kickedOut', messageKey: notice }));
      if (!silent) await dispatch(showAlert({ type: 'caution', messageKey }));
      dispatch(
        testerExitRequested({ mode: 'kickOutMyselfAi', after: { exit: 'kickedOut', messageKey: notice } }),
      );
      return;
    }
    if (!silent) await dispatch(showAlert({ type: 'caution', messageKey }));
    if (fallback === 'manual') navigateTo(href('identification'));
    else navigateTo(href('examining'));
  };
