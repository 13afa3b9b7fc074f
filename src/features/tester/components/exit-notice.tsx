import Button from 'react-bootstrap/Button';
import { useTranslation } from 'react-i18next';
import { useAppDispatch, useAppSelector } from '../../../app/hooks';
import { useText } from '../../../components/ui/use-text';
import { testerExitRequested, selectTester } from '../tester-slice';
import { TOUCH } from '../../../components/ui/touch';

/**
 * After a kick-out (spec §4): the examinee was forcibly removed; log out, or (a JT start-up) close the page.
 * After any other exit (recording time exceeded, authentication error) the session has already ended: a
 * close action leaves per the exit modes (a JT start-up goes to /close, else the start-up URL reloads).
 */
export function ExitNotice() {
  const { t } = useTranslation('tester');
  const text = useText();
  const dispatch = useAppDispatch();
  const exit = useAppSelector((s) => selectTester(s).exit);
  const messageKey = useAppSelector((s) => selectTester(s).exitMessageKey);
  const isJt = useAppSelector((s) => s.startup.params.loginId !== '');
  if (exit === 'none' || !messageKey) return null;
  return (
    <div className="alert alert-danger" role="alert" data-testid="exit-notice">
      <p>{text(messageKey)}</p>
      {exit === 'kickedOut' && (
        <div className="d-flex gap-2">
          <Button
            variant="danger"
            style={TOUCH}
            onClick={() => dispatch(testerExitRequested({ mode: 'logout' }))}
          >
            {t('exit.logout')}
          </Button>
          {isJt && (
            <Button
              variant="outline-secondary"
              style={TOUCH}
              onClick={() => dispatch(testerExitRequested({ mode: 'none' }))}
            >
              {t('exit.close')}
            </Button>
          )}
        </div>
      )}
      {exit !== 'kickedOut' && (
        <Button
          variant="outline-secondary"
          style={TOUCH}
          onClick={() => dispatch(testerExitRequested({ mode: 'none' }))}
          data-testid="exit-close"
        >
          {t('exit.close')}
        </Button>
      )}
    </div>
  );
}
