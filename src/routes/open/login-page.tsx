import { lazy, Suspense, useId, useState, type FormEvent } from 'react';
import Button from 'react-bootstrap/Button';
// The form parts one by one: react-bootstrap/Form is a barrel of every form control (login route budget, FE-1).
import FormControl from 'react-bootstrap/FormControl';
import FormGroup from 'react-bootstrap/FormGroup';
import FormLabel from 'react-bootstrap/FormLabel';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router-dom';
import { useAppDispatch, useAppSelector } from '../../app/hooks';
import { FIRST_PAGE } from '../../app/permissions';
import { PageTitle } from '../../components/layout/page-title';
import { AlertBox } from '../../components/ui/alert-box';
import { NewWindowLink } from '../../components/ui/new-window-link';
import { useText } from '../../components/ui/use-text';
import { cameraInUse, useDeviceScan } from '../../features/env-check/use-device-scan';
import type { LoginInfo } from '../../features/session/session-slice';
import { loginRequested } from '../../features/session/session-thunks';
import { selectStartupParams } from '../../features/startup/startup-slice';
import { href } from '@/config/paths';
import { runtimeKey, type TranslationKey } from '../../lib/translation-key';

// The environment check opens on request, so its modal (react-bootstrap's Modal) is not part of the page's load.
const EnvCheckModal = lazy(() =>
  import('../../features/env-check/components/env-check-modal').then((m) => ({ default: m.EnvCheckModal })),
);

/** The message key of a failed login: the API error's key, or the undefined-actor / default text. */
function failureKey(err: unknown): TranslationKey {
  const e = err as { messageKey?: unknown; name?: unknown } | null;
  // The rejection is the login thunk's serialised ApiError: its messageKey was typed where it was chosen.
  if (typeof e?.messageKey === 'string' && e.messageKey) return runtimeKey(e.messageKey);
  if (e?.name === 'UndefinedActorError') return 'errors:undefinedActor';
  return 'errors:default';
}

function httpUrlOrNull(v: string): string | null {
  try {
    const u = new URL(v.trim());
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.href : null;
  } catch {
    return null;
  }
}

function CameraStatus() {
  const { t } = useTranslation('login');
  const { scan } = useDeviceScan();
  const cam = cameraInUse(scan);
  return (
    <section className="mt-4" aria-labelledby="camera-heading">
      <h2 id="camera-heading" className="h6">
        {t('camera.heading')}
      </h2>
      <p
        role="status"
        aria-live="polite"
        data-testid="camera-status"
        className={cam.status === 'found' ? '' : 'text-danger'}
      >
        {cam.status === 'checking' && t('camera.checking')}
        {cam.status === 'found' &&
          (cam.label ? t('camera.inUse', { label: cam.label }) : t('camera.unnamed'))}
        {cam.status === 'none' && t('camera.none')}
        {cam.status === 'unsupported' && t('camera.unsupported')}
      </p>
    </section>
  );
}

/** /login (PRE00001): login form, help links, environment check and the camera in use (spec §2). */
export default function LoginPage() {
  const { t } = useTranslation('login');
  const text = useText();
  const dispatch = useAppDispatch();
  const navigate = useNavigate();
  const params = useAppSelector(selectStartupParams);
  const endedReasonKey = useAppSelector((s) => s.session.endedReasonKey);
  const [loginId, setLoginId] = useState('');
  const [password, setPassword] = useState('');
  const [submitting, setSubmitting] = useState(false);
  const [errorKey, setErrorKey] = useState<TranslationKey | null>(null);
  // null until first opened; then the modal stays mounted, so closing it animates and returns the focus.
  const [envCheckOpen, setEnvCheckOpen] = useState<boolean | null>(null);
  const idField = useId();
  const pwField = useId();

  const inquiry = href('inquiry');
  const passwordHelp = httpUrlOrNull(params.passwordUrl) ?? inquiry;

  const onSubmit = async (e: FormEvent) => {
    e.preventDefault();
    setErrorKey(null);
    setSubmitting(true);
    try {
      // The login id is trimmed in api/auth.ts (spec §5).
      const info: LoginInfo = await dispatch(loginRequested({ loginId, password })).unwrap();
      void navigate(href(FIRST_PAGE[info.actor]), { replace: true });
    } catch (err) {
      setErrorKey(failureKey(err));
      setSubmitting(false);
    }
  };

  return (
    <div className="mx-auto" style={{ maxWidth: 480 }}>
      <PageTitle>{t('heading')}</PageTitle>
      {endedReasonKey && !errorKey && (
        <AlertBox variant="warning" data-testid="ended-reason">
          {text(endedReasonKey)}
        </AlertBox>
      )}
      {errorKey && (
        <AlertBox variant="danger" data-testid="login-error">
          {text(errorKey)}
        </AlertBox>
      )}
      <form onSubmit={(e) => void onSubmit(e)} noValidate>
        <FormGroup className="mb-3" controlId={idField}>
          <FormLabel>{t('loginId')}</FormLabel>
          <FormControl
            name="loginId"
            autoComplete="username"
            value={loginId}
            onChange={(e) => setLoginId(e.target.value)}
            required
            maxLength={128}
          />
        </FormGroup>
        <FormGroup className="mb-3" controlId={pwField}>
          <FormLabel>{t('password')}</FormLabel>
          <FormControl
            name="password"
            type="password"
            autoComplete="current-password"
            value={password}
            onChange={(e) => setPassword(e.target.value)}
            required
            maxLength={256}
          />
        </FormGroup>
        <Button
          type="submit"
          variant="primary"
          className="w-100"
          disabled={submitting || !loginId.trim() || !password}
        >
          {submitting ? t('submitting') : t('submit')}
        </Button>
      </form>
      <ul className="list-unstyled mt-3 mb-0">
        <li className="py-1">
          <NewWindowLink href={inquiry} target="inquiry" newWindowText={t('newWindow')}>
            {t('forgotId')}
          </NewWindowLink>
        </li>
        <li className="py-1">
          <NewWindowLink href={passwordHelp} target="password-help" newWindowText={t('newWindow')}>
            {t('forgotPassword')}
          </NewWindowLink>
        </li>
        <li className="py-1">
          <Button variant="link" className="p-0 align-baseline" onClick={() => setEnvCheckOpen(true)}>
            {t('envCheck.open')}
          </Button>
        </li>
      </ul>
      <CameraStatus />
      {envCheckOpen !== null && (
        <Suspense fallback={null}>
          <EnvCheckModal show={envCheckOpen} onClose={() => setEnvCheckOpen(false)} />
        </Suspense>
      )}
    </div>
  );
}
