import { useEffect, type ComponentType, type ReactNode } from 'react';
import Button from 'react-bootstrap/Button';
import { useTranslation } from 'react-i18next';
import { useAppDispatch, useAppSelector } from '../../../app/hooks';
import { PageTitle } from '../../../components/layout/page-title';
import { useText } from '../../../components/ui/use-text';
import { selectAi } from '../identification-slice';
import {
  aiIdentificationEntered,
  aiPhotoRegistered,
  aiPhotoTaken,
  aiRetakeRequested,
} from '../ai-identification-thunks';
import { selectTester } from '@/features/tester/tester-slice';

const TOUCH = { minHeight: 44, minWidth: 44 };

/**
 * What the route composes into the view (routes/tester): the tester pages' chrome (step bar, notices, the live
 * channel's status) under the title, and the tester feature's camera preview. The identification feature
 * does not reach into the tester or live features for them.
 */
export interface AiIdentificationSlots {
  chrome: ReactNode;
  Camera: ComponentType<{ label: string }>;
}

/** /identification-ai (PRE00003): face photo, then ID photo, retake/register, the AI notice (spec §2, §4). */
export function AiIdentificationView({ chrome, Camera }: AiIdentificationSlots) {
  const { t } = useTranslation('identification');
  const text = useText();
  const dispatch = useAppDispatch();
  const ai = useAppSelector(selectAi);
  const tester = useAppSelector(selectTester);
  useEffect(() => {
    void dispatch(aiIdentificationEntered());
  }, [dispatch]);
  const phase = ai.phase;
  const confirming = phase === 'faceConfirm' || phase === 'idCardConfirm';
  const kind = phase === 'idCard' || phase === 'idCardConfirm' ? 'idCard' : 'face';
  const photo = kind === 'face' ? tester.identityImage : tester.idImage;
  const n = tester.aiNotice;
  return (
    <section aria-labelledby="page-title">
      <PageTitle>
        <span id="page-title">{t('ai.title')}</span>
      </PageTitle>
      {chrome}
      <div role="status" aria-live="polite" data-testid="ai-state" data-phase={phase}>
        {ai.unavailable && (
          <p className="alert alert-warning" data-testid="ai-unavailable">
            {t('ai.unavailable')}
          </p>
        )}
        {ai.messageKey && <p className="alert alert-warning">{text(ai.messageKey, ai.messageValues)}</p>}
        {phase === 'sending' && <p>{t('ai.sending')}</p>}
        {phase === 'passed' && <p className="alert alert-success">{t('ai.passed')}</p>}
      </div>
      {ai.errorKey && (
        <p className="text-danger" role="alert">
          {text(ai.errorKey)}
        </p>
      )}
      {(phase === 'face' || phase === 'idCard' || confirming) && (
        <div className="row g-4">
          <div className="col-md-6">
            <p>{t(`ai.step.${kind}`)}</p>
            {n && (
              <p className="small" data-testid="ai-notice">
                {t('ai.notice', {
                  kind: text(n.selectedStr),
                  remaining: n.retry,
                  limit: n.limite,
                  limitMinusOne: Math.max(0, n.limite - 1),
                })}
              </p>
            )}
            <div hidden={confirming}>
              <Camera label={t('ai.previewLabel')} />
            </div>
            {confirming && photo && (
              <img src={photo} alt={t('ai.photoLabel')} className="w-100 rounded" style={{ maxWidth: 480 }} />
            )}
            <div className="d-flex flex-wrap gap-2 mt-2">
              {!confirming && (
                <Button
                  size="lg"
                  style={TOUCH}
                  onClick={() => void dispatch(aiPhotoTaken())}
                  data-testid="ai-take"
                >
                  {t('ai.take')}
                </Button>
              )}
              {confirming && (
                <>
                  <p className="w-100 fw-bold mb-1" id="ai-confirm">
                    {t('ai.confirm')}
                  </p>
                  <Button
                    variant="outline-secondary"
                    size="lg"
                    style={TOUCH}
                    onClick={() => void dispatch(aiRetakeRequested())}
                    data-testid="ai-retake"
                  >
                    {t('ai.retake')}
                  </Button>
                  <Button
                    size="lg"
                    style={TOUCH}
                    aria-describedby="ai-confirm"
                    onClick={() => void dispatch(aiPhotoRegistered())}
                    data-testid="ai-register"
                  >
                    {t('ai.register')}
                  </Button>
                </>
              )}
            </div>
          </div>
          <div className="col-md-6">
            <h2 className="h5">{t('ai.fixedHeading')}</h2>
            <ul className="list-unstyled" data-testid="ai-fixed-texts">
              {tester.aiFixedTexts.map((f) => (
                <li key={f.text} className={f.isError ? 'text-danger' : ''}>
                  <span aria-hidden="true">{f.check ? '☑' : '☐'}</span> {text(f.text)}
                </li>
              ))}
            </ul>
          </div>
        </div>
      )}
    </section>
  );
}
