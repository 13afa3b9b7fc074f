import { useTranslation } from 'react-i18next';
import { useAppSelector } from '../../../app/hooks';
import type { StepBar as Step } from '../tester-slice';

const STEPS: Step[] = [1, 2, 3, 4];

/** Spec §4 step bar: 1 env setting, 2 terms agree, 3 identification, 4 before exam. */
export function StepBar() {
  const { t } = useTranslation('tester');
  const current = useAppSelector((s) => s.tester.stepBar);
  return (
    <nav aria-label={t('stepBar.label')} className="mb-3">
      <ol className="list-inline d-flex flex-wrap gap-2 mb-0" data-testid="step-bar">
        {STEPS.map((n) => (
          <li
            key={n}
            className={`list-inline-item badge rounded-pill p-2 ${n === current ? 'text-bg-primary' : n < current ? 'text-bg-success' : 'text-bg-light border'}`}
            aria-current={n === current ? 'step' : undefined}
          >
            {n}. {t(`stepBar.steps.${n}`)}
          </li>
        ))}
      </ol>
    </nav>
  );
}
