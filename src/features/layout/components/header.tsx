import { useState } from 'react';
import Badge from 'react-bootstrap/Badge';
import Button from 'react-bootstrap/Button';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router-dom';
import { useAppDispatch, useAppSelector } from '../../../app/hooks';
import type { Actor, PageId } from '../../../app/permissions';
import type { RootState } from '../../../app/store';
import { IconButton, CLOSE_ICON } from '../../../components/ui/icon-button';
import { selectLogin, testerLogoutRequested } from '../../session/session-slice';
import { logoutRequested } from '../../session/session-thunks';
import { selectStartupParams } from '../../startup/startup-slice';
import { selectHeaderLogoutDisabled } from '../layout-slice';
import { confirm } from '../layout-thunks';
import { ACTOR } from '@contract/constants/common';
import { TESTER_STATUS } from '@contract/constants/tester';

/**
 * The tester state, or null before a tester route registered the tester slice. Read here rather than through
 * the tester slice's selectors so the header (every page, the entry chunk) does not load the tester feature.
 */
export function selectHeaderTesterState(s: RootState): number | null {
  return s.tester?.testerState ?? null;
}

/**
 * Whether /examining knows where the sitting stands (tester-slice `examiningSittingKnown`); false before the
 * tester slice is registered. Read as the tester state is, for the same reason.
 */
export function selectHeaderSittingKnown(s: RootState): boolean {
  return s.tester?.examiningSittingKnown === true;
}

/**
 * Spec §2: logout shows only when logged in; for a tester only on env-setting, or on examining when the
 * tester state is not EXAMING. On examining that state is known only once the page has opened the sitting
 * (`sittingKnown`): before, the tester state is its default, and a running exam (a reload mid-exam) would be
 * offered a logout the spec hides.
 */
export function isLogoutVisible(
  actor: Actor | null,
  page: PageId | null,
  testerState: number | null,
  sittingKnown: boolean,
): boolean {
  if (actor === null) return false;
  if (actor !== ACTOR.tester) return true;
  if (page === 'envSetting') return true;
  if (page === 'examining') return sittingKnown && testerState !== TESTER_STATUS.examing;
  return false;
}

/** Host of the start-up `target` URL (shown as a badge); '' when there is none. */
export function targetDomain(target: string): string {
  const v = target.trim();
  if (!v) return '';
  for (const candidate of [v, `https://${v}`]) {
    try {
      const host = new URL(candidate).host;
      if (host) return host;
    } catch {
      /* try the next form */
    }
  }
  return '';
}

export interface HeaderProps {
  /** The page on screen (null on error pages). */
  page: PageId | null;
  loginHref: string;
}

/** Spec §2 header: target domain badge, user name (login id), close button on login, logout button. */
export function Header({ page, loginHref }: HeaderProps) {
  const { t } = useTranslation(['layout', 'common']);
  const dispatch = useAppDispatch();
  const navigate = useNavigate();
  const login = useAppSelector(selectLogin);
  const target = useAppSelector((s) => selectStartupParams(s).target);
  const testerState = useAppSelector(selectHeaderTesterState);
  const sittingKnown = useAppSelector(selectHeaderSittingKnown);
  const logoutDisabled = useAppSelector(selectHeaderLogoutDisabled);
  const [busy, setBusy] = useState(false);

  const actor = login?.actor ?? null;
  const domain = targetDomain(target);
  const showLogout = isLogoutVisible(actor, page, testerState, sittingKnown);

  const onLogout = async () => {
    if (actor === ACTOR.tester && testerState !== null) {
      // The examinee's logout is the exit sequence of spec §4; the tester pages carry it out and navigate.
      dispatch(testerLogoutRequested());
      return;
    }
    if (actor === ACTOR.checker) {
      // spec §2: a checker's logout warns that the connections to matched examinees will be cut.
      const ok = await dispatch(
        confirm({
          titleKey: 'layout:logoutConfirm.checkerTitle',
          messageKey: 'layout:logoutConfirm.checkerMessage',
        }),
      );
      if (!ok) return;
    }
    setBusy(true);
    try {
      await dispatch(logoutRequested());
    } finally {
      setBusy(false);
    }
    void navigate(loginHref, { replace: true });
  };

  return (
    <header className="navbar bg-body-tertiary border-bottom px-3" aria-label={t('header.label')}>
      <div className="d-flex flex-wrap align-items-center gap-2 me-auto">
        <span className="navbar-brand mb-0 h1 fs-5">{t('common:appName')}</span>
        {domain && (
          <Badge bg="secondary" className="fw-normal" data-testid="target-domain">
            {t('header.targetDomain', { domain })}
          </Badge>
        )}
      </div>
      <div className="d-flex flex-wrap align-items-center gap-2">
        {login && (
          <span className="text-body" data-testid="header-user">
            {t('header.userName', { name: login.examUserName, loginId: login.loginId })}
          </span>
        )}
        {showLogout && (
          <Button variant="outline-primary" onClick={() => void onLogout()} disabled={logoutDisabled || busy}>
            {t('logout')}
          </Button>
        )}
        {page === 'login' && (
          <IconButton label={t('header.closeWindow')} icon={CLOSE_ICON} onClick={() => window.close()} />
        )}
      </div>
    </header>
  );
}
