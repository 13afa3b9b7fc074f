import { useTranslation } from 'react-i18next';
import Button from 'react-bootstrap/Button';
import { useAppDispatch, useAppSelector } from '../../../app/hooks';
import { selectExamineeDetail } from '../examinees-slice';
import { passDecided } from '../examinee-detail-thunks';

/** Pass/fail of spec §2: the current decision and two buttons, each confirmed before it is saved. */
export function PassFailSetting() {
  const { t } = useTranslation('examinees');
  const dispatch = useAppDispatch();
  const { pass, passStatus } = useAppSelector(selectExamineeDetail);
  const current = pass === 1 ? t('pass.pass') : pass === 0 ? t('pass.fail') : t('pass.undecided');
  return (
    <section aria-labelledby="pass-heading" className="mb-4">
      <h2 id="pass-heading" className="h5">
        {t('pass.heading')}
      </h2>
      <p>
        {t('pass.current')}: <strong data-testid="pass-value">{current}</strong>
      </p>
      <div className="d-flex gap-2">
        <Button
          variant="success"
          disabled={passStatus === 'loading'}
          onClick={() => void dispatch(passDecided(true))}
        >
          {t('pass.setPass')}
        </Button>
        <Button
          variant="danger"
          disabled={passStatus === 'loading'}
          onClick={() => void dispatch(passDecided(false))}
        >
          {t('pass.setFail')}
        </Button>
      </div>
    </section>
  );
}
