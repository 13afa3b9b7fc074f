import type { LoginInfo } from './session-slice';
import { isActor } from '../../app/permissions';

/** Session storage key for the login result (the token lives only in sessionStorage, never localStorage). */
export const SESSION_KEY = 'session';

export function saveSession(login: LoginInfo): void {
  try {
    sessionStorage.setItem(SESSION_KEY, JSON.stringify(login));
  } catch {
    // Storage may be full or blocked; the session then lasts for this page only.
  }
}

export function clearSession(): void {
  try {
    sessionStorage.removeItem(SESSION_KEY);
  } catch {
    /* ignore */
  }
}

/** The saved login, when one is there and well-formed. */
export function restoreSession(): LoginInfo | null {
  try {
    const raw = sessionStorage.getItem(SESSION_KEY);
    if (!raw) return null;
    const v = JSON.parse(raw) as Partial<LoginInfo>;
    if (
      typeof v.accessToken !== 'string' ||
      !v.accessToken ||
      !isActor(v.actor) ||
      typeof v.loginId !== 'string'
    )
      return null;
    return {
      accessToken: v.accessToken,
      examUserName: String(v.examUserName ?? ''),
      loginId: v.loginId,
      actor: v.actor,
      kicked: typeof v.kicked === 'number' ? v.kicked : null,
      groupId: typeof v.groupId === 'number' ? v.groupId : null,
      group: typeof v.group === 'string' ? v.group : null,
    };
  } catch {
    return null;
  }
}
