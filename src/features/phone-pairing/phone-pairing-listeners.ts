import { TaskAbortError } from '@reduxjs/toolkit';
import type { AppStartListening } from '../../app/listener';
import { requestPairingCode } from '../../api/phone';
import {
  phoneCodeFailed,
  phoneCodeIssued,
  phoneCodeRequested,
  phonePanelHidden,
  phonePanelShown,
  selectPhonePairing,
  wantsCode,
} from './phone-pairing-slice';

/** A code is replaced this long before it expires, so the one on screen always still works when scanned. */
export const CODE_RENEW_MARGIN_MS = 10_000;
/** The longest single wait before the code's expiry is looked at again (timers past 2^31 ms fire at once). */
const MAX_WAIT_MS = 60_000;
/** After a failed request, the next try waits this long. */
export const CODE_RETRY_MS = 5_000;

/**
 * Keeps a valid pairing code on screen while the panel is shown and the sitting's phone camera does not publish
 * (no phone yet, the phone was lost, or "pair another phone"): asks for one, and for a fresh one shortly before
 * it expires. Nothing is asked for while a phone publishes or the panel is not shown.
 */
export function addPhonePairingListeners(startListening: AppStartListening): void {
  startListening({
    actionCreator: phonePanelShown,
    effect: async (_action, api) => {
      api.cancelActiveListeners();
      const loop = api.fork(async (task) => {
        for (;;) {
          const p = selectPhonePairing(api.getState());
          if (!wantsCode(p)) {
            // Wait until a code is wanted (the phone was lost, "pair another phone").
            await task.pause(api.condition((_a, s) => wantsCode(selectPhonePairing(s))));
            continue;
          }
          const left = p.code ? Date.parse(p.code.expiresAt) - Date.now() - CODE_RENEW_MARGIN_MS : 0;
          if (left > 0) {
            // Renew shortly before expiry; look again sooner when no code is wanted any more.
            await task.pause(
              api.condition(
                (_a, s) => !wantsCode(selectPhonePairing(s)) || !selectPhonePairing(s).code,
                Math.min(left, MAX_WAIT_MS),
              ),
            );
            continue;
          }
          api.dispatch(phoneCodeRequested());
          try {
            const c = await task.pause(requestPairingCode());
            // A phone may have paired meanwhile: a code nobody wants is not shown.
            if (wantsCode(selectPhonePairing(api.getState())))
              api.dispatch(phoneCodeIssued({ code: c.code, expiresAt: c.expiresAt }));
          } catch (e) {
            if (e instanceof TaskAbortError) throw e;
            api.dispatch(phoneCodeFailed());
            await task.delay(CODE_RETRY_MS);
          }
        }
      });
      await api.take(phonePanelHidden.match);
      loop.cancel();
    },
  });
}
