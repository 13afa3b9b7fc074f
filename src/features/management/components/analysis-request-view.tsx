import { useEffect, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import Alert from 'react-bootstrap/Alert';
import Button from 'react-bootstrap/Button';
import Table from 'react-bootstrap/Table';
import { useAppDispatch, useAppSelector } from '../../../app/hooks';
import { useText } from '../../../components/ui/use-text';
import { selectSelectedTestIds } from '../../examinees/examinees-slice';
import { selectManagement, type Failure } from '../management-slice';
import { analysisPageOpened, analysisSubmitted } from '../management-thunks';
import type { FieldErrors } from '../management-validation';
import { SelectField, TextField, useFieldMessage } from '../../../components/ui/form-fields';

/** spec §9 analysis methods, in order (values 1–5). */
const METHODS = [1, 2, 3, 4, 5] as const;

/** /analysis-request: request number, method, submit, and the history (spec §2). */
export function AnalysisRequestView() {
  const { t } = useTranslation('management');
  const text = useText();
  const message = useFieldMessage();
  const dispatch = useAppDispatch();
  const testIds = useAppSelector(selectSelectedTestIds);
  const { analysis } = useAppSelector(selectManagement);
  const [inseq, setInseq] = useState('');
  const [status, setStatus] = useState('');
  const [errors, setErrors] = useState<FieldErrors>({});
  const [failure, setFailure] = useState<Failure | null>(null);
  useEffect(() => {
    void dispatch(analysisPageOpened());
  }, [dispatch]);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const r = await dispatch(analysisSubmitted({ inseq, status, testIds }));
    setErrors(r.ok ? {} : (r.errors ?? {}));
    setFailure(r.ok ? null : (r.failure ?? null));
  };
  const initial = analysis.data.initial;
  return (
    <div>
      {testIds.length === 0 ? (
        <Alert variant="warning" role="alert">
          {text('validation:noExamineeSelected')}
        </Alert>
      ) : (
        <p>{t('analysis.selected', { count: testIds.length })}</p>
      )}
      {initial && (
        <p className="small text-body-secondary">
          {t('analysis.environment', { domain: initial.domain, env: initial.env })}
        </p>
      )}
      {failure && (
        <Alert variant="danger" role="alert">
          <p className="mb-0 fw-bold">{text(failure.messageKey)}</p>
          {failure.messageText && <p className="mb-0">{failure.messageText}</p>}
        </Alert>
      )}
      <form
        onSubmit={(e) => void submit(e)}
        noValidate
        className="border rounded p-3 mb-3"
        style={{ maxWidth: 560 }}
      >
        <TextField
          id="analysis-inseq"
          label={t('analysis.inseq')}
          value={inseq}
          error={message(errors.inseq)}
          onChange={setInseq}
        />
        <SelectField
          id="analysis-status"
          label={t('analysis.method')}
          value={status}
          emptyLabel={t('select')}
          options={METHODS.map((m) => ({ value: m, label: t(`analysis.methods.${m}`) }))}
          error={message(errors.status)}
          onChange={setStatus}
        />
        {errors.testers && (
          <p className="text-danger" role="alert">
            {message(errors.testers)}
          </p>
        )}
        <Button type="submit">{t('analysis.submit')}</Button>
      </form>
      <Table bordered size="sm">
        <caption>{t('analysis.history')}</caption>
        <thead>
          <tr>
            <th scope="col">{t('analysis.inseq')}</th>
            <th scope="col">{t('analysis.status')}</th>
            <th scope="col">{t('analysis.env')}</th>
            <th scope="col">{t('analysis.createdAt')}</th>
            <th scope="col">{t('analysis.updatedAt')}</th>
          </tr>
        </thead>
        <tbody>
          {analysis.data.history.length === 0 ? (
            <tr>
              <td colSpan={5}>{t('analysis.noHistory')}</td>
            </tr>
          ) : (
            analysis.data.history.map((h) => (
              <tr key={h.id}>
                <td>{h.inseq}</td>
                <td>{h.status}</td>
                <td>{h.env}</td>
                <td>{h.createdAt}</td>
                <td>{h.updatedAt}</td>
              </tr>
            ))
          )}
        </tbody>
      </Table>
    </div>
  );
}
