import { useEffect, useState, type ReactNode } from 'react';
import Button from 'react-bootstrap/Button';
import { useTranslation } from 'react-i18next';
import { useAppDispatch, useAppSelector } from '../../../app/hooks';
import type { RootState } from '../../../app/store';
import { PageTitle } from '../../../components/layout/page-title';
import { useText } from '../../../components/ui/use-text';
import { LiveStatus } from '../../live/components/live-status';
import { selectPhoneBlocksExamStart } from '../../phone-pairing/phone-pairing-slice';
import { examErrorOccurred, examTermAgreementChanged, examiningLeft, selectTester } from '../tester-slice';
import { selectExamBlocker } from '../../wider-view/wider-view-selectors';
import { examiningEntered } from '../examining-thunks';
import type { AppThunk } from '../../../app/store';
import { stopWakeLock } from '../tester-thunks';
import { DisconnectBanner } from './disconnect-banner';
import { ExitNotice } from './exit-notice';
import { StepBar } from './step-bar';
import { TermsAgreement } from './terms-agreement';
import { TOUCH } from '../../../components/ui/touch';
import { deferredPart } from '../../../components/ui/deferred-part';

// The chat shows once the sitting is known, never in the page's first render (its loading state): its code is
// fetched right after that render, beside the exam's machinery.
const chat = deferredPart(() => import('./chat-panel').then((m) => m.ChatPanel));
const ChatPanel = chat.Part;

/**
 * The exam's actions (exam-thunks.ts) load with the exam's machinery, which is registered before the page opens
 * the sitting, so a click finds them in memory; one whose code cannot be loaded shows the network error.
 */
const examThunks = () => import('../exam-thunks');

/** The recording phase, or null while the recording feature is not registered with the store (still loading). */
export function selectRecordingPhase(s: RootState): string | null {
  return s.recording?.phase ?? null;
}

/** Recording phases this view names itself; the rest (uploading n of m …) come from <RecordingStatus/>. */
const PHASE_TEXT: Record<string, 'recording' | 'idle' | 'stopped' | 'error'> = {
  starting: 'recording',
  recording: 'recording',
  idle: 'idle',
  uploading: 'stopped',
  'waiting-network': 'stopped',
  done: 'stopped',
  error: 'error',
};

/** The recording state in words: while the recorder runs it is recording, whatever the uploads are doing. */
export function selectRecordingText(s: RootState): 'recording' | 'idle' | 'stopped' | 'error' | null {
  const rec = s.recording;
  if (!rec) return null;
  if (rec.recorderRunning && rec.phase !== 'error') return 'recording';
  return PHASE_TEXT[rec.phase] ?? null;
}

/**
 * /examining (PRE00004): exam notes, log in to the exam system, the exam's state, finish (spec §2). `steps`: what
 * the route adds before the exam (the wider view's screen share and room scan); logging in, and resuming an
 * interrupted exam, wait until they are done. `phonePanel`: the phone camera's pairing panel, composed by the route
 * (shown above the notes, since the exam cannot start before the phone camera publishes). `ready`: registers
 * what the sitting's opening needs beyond the first render (the route's exam machinery); the page is opened
 * once it resolves, and a failure to load it reaches the route's error boundary (the one-time reload).
 */
export function ExaminingView({
  steps,
  phonePanel,
  ready = () => Promise.resolve(),
}: { steps?: ReactNode; phonePanel?: ReactNode; ready?: () => Promise<void> } = {}) {
  const { t } = useTranslation('examining');
  const text = useText();
  const dispatch = useAppDispatch();
  const tester = useAppSelector(selectTester);
  const recording = useAppSelector(selectRecordingPhase);
  const recordingText = useAppSelector(selectRecordingText);
  const blocker = useAppSelector(selectExamBlocker);
  const phoneBlocks = useAppSelector(selectPhoneBlocksExamStart);
  const [machineryFailure, setMachineryFailure] = useState<{ error: unknown } | null>(null);
  useEffect(() => {
    let live = true;
    chat.preload().catch(() => undefined);
    ready().then(
      () => {
        if (live) void dispatch(examiningEntered());
      },
      (error: unknown) => {
        if (live) setMachineryFailure({ error });
      },
    );
    return () => {
      live = false;
      stopWakeLock();
      dispatch(examiningLeft());
    };
  }, [dispatch, ready]);
  if (machineryFailure) throw machineryFailure.error;

  const act = (pick: (m: Awaited<ReturnType<typeof examThunks>>) => AppThunk<Promise<void>>) =>
    void examThunks().then(
      (m) => dispatch(pick(m)),
      () => dispatch(examErrorOccurred('examining:errors.network')),
    );

  const phase = tester.examPhase;
  const removed = tester.exit !== 'none';
  const inExam = phase === 'examing' || phase === 'interrupted' || phase === 'finishing';
  // Until the page knows where the sitting stands (a reload mid-exam, whose code may still be loading), the
  // tester state is its defaults: the notes and the login would be a guess about an exam that may be running.
  // A failed opening (tester/detail could not be had) says why and asks again.
  const opening = !tester.examiningSittingKnown && !removed;
  return (
    <section aria-labelledby="page-title">
      <PageTitle>
        <span id="page-title">{t('title')}</span>
      </PageTitle>
      {opening ? (
        tester.examErrorKey ? (
          <>
            <p className="text-danger" role="alert" data-testid="exam-error">
              {text(tester.examErrorKey)}
            </p>
            <Button size="lg" style={TOUCH} onClick={() => void dispatch(examiningEntered())}>
              {t('opening.retry')}
            </Button>
          </>
        ) : (
          <p role="status" data-testid="exam-opening">
            {t('opening.loading')}
          </p>
        )
      ) : (
        <>
          <StepBar />
          {!removed && (
            <p className="alert alert-info fw-bold" data-testid="monitoring-label">
              {t('monitoringLabel')}
            </p>
          )}
          <ExitNotice />
          <DisconnectBanner />
          <LiveStatus />
          <dl className="row small mb-3">
            <dt className="col-sm-3">{t('recording.label')}</dt>
            <dd className="col-sm-9" data-testid="recording-state">
              {recording === null
                ? t('recording.preparing')
                : recordingText
                  ? t(`recording.${recordingText}`)
                  : t('recording.unknown', { status: recording })}
            </dd>
            <dt className="col-sm-3">{t('interruption.label')}</dt>
            <dd className="col-sm-9" data-testid="interruption-state">
              {phase === 'interrupted' ? t('interruption.interrupted') : t('interruption.none')}
            </dd>
          </dl>
          <p role="status" aria-live="polite" data-testid="exam-phase" data-phase={phase}>
            {t(`phase.${phase}`)}
          </p>
          <div aria-live="assertive" role="alert">
            {tester.examErrorKey && (
              <p className="text-danger" data-testid="exam-error">
                {text(tester.examErrorKey)}
              </p>
            )}
            {tester.authError && tester.exit === 'none' && (
              <p className="text-danger">{text('tester:errors.authError')}</p>
            )}
          </div>

          {!removed && phonePanel}
          {!removed && steps}
          {!removed && blocker && phase !== 'examing' && (
            <p className="small text-danger fw-bold" id="exam-blocked" data-testid="exam-blocked">
              {t(`blocked.${blocker}`)}
            </p>
          )}
          {!removed && !inExam && (
            <section aria-labelledby="notes-heading">
              <h2 id="notes-heading" className="h5">
                {t('notes.heading')}
              </h2>
              <TermsAgreement
                term={tester.examiningTerm}
                testId="exam-notes"
                checkboxId="exam-notes-agree"
                texts={{
                  region: t('notes.regionLabel'),
                  loadFailed: t('notes.loadFailed'),
                  fallback: t('notes.default'),
                  agree: t('notes.agree'),
                }}
                agreed={tester.examTermAgreed}
                onAgreedChange={(agreed) => dispatch(examTermAgreementChanged(agreed))}
              />
              {!tester.examTermAgreed && (
                <p className="small text-body-secondary" id="login-hint">
                  {t('loginHint')}
                </p>
              )}
              {phoneBlocks && (
                <p className="small text-body-secondary" id="phone-hint" data-testid="phone-blocks-start">
                  {t('phoneHint')}
                </p>
              )}
              <Button
                size="lg"
                className="mt-2"
                style={TOUCH}
                disabled={!tester.examTermAgreed || phoneBlocks || phase === 'opening' || blocker !== null}
                aria-describedby={
                  [
                    !tester.examTermAgreed ? 'login-hint' : '',
                    phoneBlocks ? 'phone-hint' : '',
                    blocker ? 'exam-blocked' : '',
                  ]
                    .join(' ')
                    .trim() || undefined
                }
                onClick={() => act((m) => m.examSystemLoginRequested())}
                data-testid="exam-login"
              >
                {phase === 'opening' ? t('loginBusy') : t('login')}
              </Button>
            </section>
          )}

          {!removed && phase === 'examing' && !tester.examWindowAttached && (
            <p className="small" id="reopen-hint">
              {t('reopenHint')}
            </p>
          )}
          {!removed && inExam && (
            <div className="d-flex flex-wrap gap-2">
              {phase === 'examing' && !tester.examWindowAttached && (
                <Button
                  size="lg"
                  variant="outline-primary"
                  style={TOUCH}
                  aria-describedby="reopen-hint"
                  onClick={() => act((m) => m.examSystemLoginRequested())}
                  data-testid="exam-reopen"
                >
                  {t('reopen')}
                </Button>
              )}
              {phase === 'interrupted' && (
                <Button
                  size="lg"
                  style={TOUCH}
                  disabled={blocker !== null}
                  aria-describedby={blocker ? 'exam-blocked' : undefined}
                  onClick={() => act((m) => m.examSystemLoginRequested())}
                  data-testid="exam-resume"
                >
                  {t('resume')}
                </Button>
              )}
              <Button
                size="lg"
                variant="danger"
                style={TOUCH}
                disabled={phase === 'finishing'}
                onClick={() => act((m) => m.examFinishRequested())}
                data-testid="exam-finish"
              >
                {phase === 'finishing' ? t('finish.busy') : t('finish.button')}
              </Button>
            </div>
          )}

          <div className="mt-4">
            <ChatPanel needed messageType={3} disabled={removed} />
          </div>
        </>
      )}
    </section>
  );
}
