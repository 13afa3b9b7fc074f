import { useTranslation } from 'react-i18next';
import { useAppSelector } from '../../../app/hooks';
import { selectTester, type ExamPhase, type StepBar as Step } from '../tester-slice';

const STEPS: Step[] = [1, 2, 3, 4];

/** Once the exam has started, every step before it is behind the examinee. */
const PAST_THE_STEPS: readonly ExamPhase[] = ['examing', 'interrupted', 'finishing', 'finished', 'ended'];

/**
 * Spec §4 step bar: 1 env setting, 2 terms agree, 3 identification, 4 before exam. From the start of the
 * exam on, all four show as done and none as current (the bar is "the steps before the exam").
 */
export function StepBar() {
  const { t } = useTranslation('tester');
  const step = useAppSelector((s) => selectTester(s).stepBar);
  const started = useAppSelector((s) => PAST_THE_STEPS.includes(selectTester(s).examPhase));
  const current = started ? STEPS.length + 1 : step;
  return (
    <nav aria-label={t('stepBar.label')} className="mb-3">
      <ol
        className="list-inline d-flex flex-wrap gap-2 mb-0"
        data-testid="step-bar"
        data-current={started ? 'done' : current}
      >
        {STEPS.map((n) => (
          <li
            key={n}
            className={`list-inline-item badge rounded-pill p-2 ${n === current ? 'text-bg-primary' : n < current ? 'text-bg-success' : 'text-bg-light border'}`}
            aria-current={n === current ? 'step' : undefined}
          >
            {n}. {t(`stepBar.steps.${n}`)}
            {n < current && <span className="visually-hidden"> ({t('stepBar.done')})</span>}
          </li>
        ))}
      </ol>
    </nav>
  );
}
