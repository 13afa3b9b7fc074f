import type { AppThunk } from '../../app/store';
import {
  acceptIdentity,
  getMatchingHistories,
  kickOutExaminee,
  postCheckerMessage,
  reconnectViewerChannel,
  rejectIdentity,
  setMonitorActivation,
} from '../../api/checker';
import { isServerUnreachable } from '../../api/api-error';
import { saveMarking } from '../../api/markings';
import { requestRoomScan } from '../../api/wider-view';
import { captureJpeg } from '../../media/frame-capture';
import { getVideo } from '../../media/viewer-registry';
import { confirm, showAlert } from '../layout/layout-thunks';
import {
  activationFailed,
  activationLoaded,
  activationSaving,
  authDecided,
  authDecisionRequested,
  chatOpened,
  paneEnlargeToggled,
  paneMutedChanged,
  chatReceived,
  historyFailed,
  historyLoaded,
  historyRequested,
  markingClosed,
  markingOpened,
  markingSaveFailed,
  markingSaving,
  paneConnectionChanged,
  paneRemoved,
  paneRoomScanRequested,
  selectActivation,
  selectMarking,
  selectMarks,
  selectPane,
} from './monitoring-slice';
import { connectPaneViewer, paneKey, rememberPaneCredentials, stopPaneViewer } from './monitoring-viewers';
import type { TranslationKey } from '../../lib/translation-key';

/**
 * The error alert of an action that failed: when the server could not be reached, a text that says so and
 * that the checker can try again once it is back (the console's notice tells when), else the action's own.
 */
const actionFailed = (e: unknown, failed: TranslationKey, offline: TranslationKey) =>
  showAlert({ type: 'error', messageKey: isServerUnreachable(e) ? offline : failed });

/** Chat text the checker sends to one examinee; resolves true when the server stored it. */
export const chatSent =
  (testerId: number, text: string): AppThunk<Promise<boolean>> =>
  async (dispatch) => {
    const message = text.trim();
    if (!message) return false;
    try {
      const posted = await postCheckerMessage(testerId, message);
      if (posted) dispatch(chatReceived({ testerId, messages: [posted] }));
      return true;
    } catch (e) {
      // The text stays in the comment field (the caller clears it only on success).
      await dispatch(actionFailed(e, 'monitoring:chat.sendFailed', 'monitoring:chat.sendFailedOffline'));
      return false;
    }
  };

/**
 * The checker pressed reconnect: fresh credentials from kvs_reconnect (the examinee is told to reset too) and a
 * new viewer with a fresh client id; the phone's view too, with the fresh credentials of the phone's channel the
 * answer carries while a phone publishes.
 */
export const reconnectRequested =
  (testerId: number): AppThunk<Promise<void>> =>
  async (dispatch, getState) => {
    const pane = selectPane(getState(), testerId);
    if (!pane) return;
    dispatch(
      paneConnectionChanged({
        testerId,
        monitorId: pane.monitorId,
        connection: 'reconnecting',
        at: Date.now(),
      }),
    );
    try {
      const m = await reconnectViewerChannel(testerId);
      if (!m || m.monitorId !== pane.monitorId) {
        stopPaneViewer(testerId);
        dispatch(paneRemoved({ testerId, monitorId: pane.monitorId }));
        return;
      }
      const phone = m.phone;
      if (phone?.state === 'live' && phone.channel) {
        rememberPaneCredentials(testerId, phone.channel, 'phone');
        void connectPaneViewer({ dispatch, getState }, testerId, m.monitorId, phone.channel, 'phone');
      }
      if (!m.channel) return;
      await connectPaneViewer({ dispatch, getState }, testerId, m.monitorId, m.channel);
    } catch (e) {
      // Unreachable: nothing was asked of the examinee and the viewer still runs, so the pane keeps its state.
      const connection = isServerUnreachable(e) ? pane.connection : 'lost';
      dispatch(paneConnectionChanged({ testerId, monitorId: pane.monitorId, connection, at: Date.now() }));
      await dispatch(actionFailed(e, 'monitoring:reconnect.failed', 'monitoring:reconnect.failedOffline'));
    }
  };

/** Kick-out with confirmation (tester/kick_out PUT); the pane goes away on success. */
export const kickOutRequested =
  (testerId: number): AppThunk<Promise<void>> =>
  async (dispatch, getState) => {
    const pane = selectPane(getState(), testerId);
    if (!pane) return;
    const ok = await dispatch(
      confirm({
        titleKey: 'monitoring:kickOut.title',
        messageKey: 'monitoring:kickOut.confirm',
        messageValues: { name: pane.name ?? pane.loginId, loginId: pane.loginId },
        alertType: 'caution',
      }),
    );
    if (!ok) return;
    try {
      await kickOutExaminee(testerId);
    } catch (e) {
      await dispatch(actionFailed(e, 'monitoring:kickOut.failed', 'monitoring:kickOut.failedOffline'));
      return;
    }
    stopPaneViewer(testerId);
    dispatch(paneRemoved({ testerId, monitorId: pane.monitorId }));
    await dispatch(showAlert({ type: 'success', messageKey: 'monitoring:kickOut.done' }));
  };

/**
 * "Ask for a room scan" (README "The wider view"): the examinee's page shows the instructions at once; the pane
 * follows the scan through its markers (asked for, under way, done).
 */
export const roomScanRequested =
  (testerId: number): AppThunk<Promise<void>> =>
  async (dispatch, getState) => {
    const pane = selectPane(getState(), testerId);
    if (!pane) return;
    try {
      const scan = await requestRoomScan(testerId);
      dispatch(paneRoomScanRequested({ testerId, status: scan.status }));
    } catch (e) {
      await dispatch(actionFailed(e, 'monitoring:roomScan.failed', 'monitoring:roomScan.failedOffline'));
    }
  };

/** The checker accepted (tester/status 3) or rejected (tester/rejected PUT) the examinee's identity. */
export const identityDecided =
  (testerId: number, decision: 'accepted' | 'rejected'): AppThunk<Promise<void>> =>
  async (dispatch) => {
    try {
      if (decision === 'accepted') await acceptIdentity(testerId);
      else await rejectIdentity(testerId);
    } catch (e) {
      // The dialog stays open for another try.
      await dispatch(actionFailed(e, 'monitoring:auth.failed', 'monitoring:auth.failedOffline'));
      return;
    }
    dispatch(authDecided({ testerId, auth: decision }));
  };

/** Opens the marking modal with a still taken from the examinee's live video at this moment. */
export const markingModalOpened =
  (testerId: number): AppThunk<void> =>
  (dispatch) => {
    const video = getVideo(paneKey(testerId));
    const frame = video ? captureJpeg(video) : null;
    dispatch(
      markingOpened({ testerId, image: frame?.dataUrl ?? null, capturedAt: frame?.capturedAt ?? Date.now() }),
    );
  };

/**
 * Saves the marking (tester/markings) with the time lag since the capture; success or error alert. Resolves
 * whether it was saved (on a failure the modal stays open with the still and the checker's choices).
 */
export const markingSaveRequested =
  (markId: number, notify: boolean): AppThunk<Promise<boolean>> =>
  async (dispatch, getState) => {
    const draft = selectMarking(getState());
    if (!draft || draft.status === 'saving') return false;
    dispatch(markingSaving());
    try {
      const saved = await saveMarking({
        testerId: draft.testerId,
        markId,
        image: draft.image ?? undefined,
        contentType: 'image/jpeg',
        timeLag: Date.now() - draft.capturedAt,
        notify,
      });
      dispatch(markingClosed());
      const mark = selectMarks(getState()).find((m) => m.id === markId);
      await dispatch(
        showAlert({
          type: 'success',
          messageKey: notify ? 'monitoring:marking.savedNotified' : 'monitoring:marking.saved',
          messageValues: { mark: mark?.message ?? saved.alert, score: saved.markingTotalScore },
        }),
      );
      return true;
    } catch (e) {
      dispatch(markingSaveFailed());
      await dispatch(actionFailed(e, 'monitoring:marking.failed', 'monitoring:marking.failedOffline'));
      return false;
    }
  };

/** Opens the history modal and loads checkers/matching_histories. */
export const historyModalOpened = (): AppThunk<Promise<void>> => async (dispatch) => {
  dispatch(historyRequested());
  try {
    dispatch(historyLoaded(await getMatchingHistories()));
  } catch {
    dispatch(historyFailed());
  }
};

/** Turns receiving new examinees on or off (tester/monitor_activate). */
export const activationToggled = (): AppThunk<Promise<void>> => async (dispatch, getState) => {
  const a = selectActivation(getState());
  if (!a || a.status === 'saving') return;
  dispatch(activationSaving());
  try {
    const active = await setMonitorActivation(a.monitorId, !a.active);
    dispatch(activationLoaded({ monitorId: a.monitorId, active }));
  } catch (e) {
    dispatch(activationFailed());
    await dispatch(actionFailed(e, 'monitoring:activation.failed', 'monitoring:activation.failedOffline'));
  }
};

/** The letter keys of the console (help overlay, README "Checker console"). */
export const PANE_SHORTCUTS = ['m', 'c', 'a', 'r', 'k', 'v', 'e'] as const;
export type PaneShortcut = (typeof PANE_SHORTCUTS)[number];

/**
 * A letter key was pressed for a pane: M marking, C chat, A / R accept / reject the identity (the modal
 * asks to confirm with Enter), K kick-out (confirmed), V sound, E enlarge or restore. Returns the i18n key of
 * a message to announce when the key does nothing here, else null.
 */
export const shortcutUsed =
  (key: PaneShortcut, testerId: number): AppThunk<{ key: string; name: string } | null> =>
  (dispatch, getState) => {
    const pane = selectPane(getState(), testerId);
    if (!pane) return { key: 'monitoring:shortcut.noPane', name: '' };
    const name = pane.name ?? pane.loginId;
    switch (key) {
      case 'm':
        dispatch(markingModalOpened(testerId));
        return null;
      case 'c':
        dispatch(chatOpened(testerId));
        return null;
      case 'a':
      case 'r':
        if (pane.auth !== 'authenticating') return { key: 'monitoring:shortcut.noRequest', name };
        dispatch(authDecisionRequested({ testerId, intent: key === 'a' ? 'accept' : 'reject' }));
        return null;
      case 'k':
        void dispatch(kickOutRequested(testerId));
        return null;
      case 'v':
        dispatch(paneMutedChanged({ testerId, muted: !pane.muted }));
        return null;
      case 'e':
        dispatch(paneEnlargeToggled(testerId));
        return null;
    }
  };
