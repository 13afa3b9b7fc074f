import { useEffect, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { AlertBox } from '../../../components/ui/alert-box';
import Button from 'react-bootstrap/Button';
import Table from 'react-bootstrap/Table';
import { useAppDispatch, useAppSelector } from '../../../app/hooks';
import { useText } from '../../../components/ui/use-text';
import { selectSelectedTestIds } from '../../examinees/examinees-slice';
import { selectManagement, type Failure } from '../management-slice';
import { analysisHistoryRequested, analysisPageOpened, analysisSubmitted } from '../management-thunks';
import type { AnalysisSortKey } from '../../../api/management';
import { ProgressMeter } from '../../../components/ui/progress-meter';
import { SortHeader } from '../../../components/ui/sort-header';
import { DateTime } from '../../../components/ui/date-time';
import type { FieldErrors } from '../management-validation';
import { SelectField, TextField, useFieldMessage } from '../../../components/ui/form-fields';

/** spec §9 analysis methods, in order (values 1–5). */
const METHODS = [1, 2, 3, 4, 5] as const;

/** How often the history is read again while a request is queued or running. */
export const HISTORY_REFRESH_MS = 10_000;

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
  const { history, sort, historyFailure } = analysis.data;
  const inProgress = history.some((h) => h.status === 'queued' || h.status === 'running');
  // Progress is visible without reloading: read the history again while something is still being analysed.
  useEffect(() => {
    if (!inProgress) return;
    const timer = setInterval(() => void dispatch(analysisHistoryRequested()), HISTORY_REFRESH_MS);
    return () => clearInterval(timer);
  }, [dispatch, inProgress]);
  const header = (key: AnalysisSortKey, label: string) => (
    <SortHeader
      label={label}
      sortKey={key}
      activeKey={sort.key}
      order={sort.order}
      sortHint={t('sortHint')}
      onSort={(k, order) => void dispatch(analysisHistoryRequested({ key: k, order }))}
    />
  );
  return (
    <div>
      {testIds.length === 0 ? (
        <AlertBox variant="warning" role="alert">
          {text('validation:noExamineeSelected')}
        </AlertBox>
      ) : (
        <p>{t('analysis.selected', { count: testIds.length })}</p>
      )}
      {initial && (
        <p className="small text-body-secondary">
          {t('analysis.environment', { domain: initial.domain, env: initial.env })}
        </p>
      )}
      {failure && (
        <AlertBox variant="danger" role="alert">
          <p className="mb-0 fw-bold">{text(failure.messageKey)}</p>
          {failure.messageText && <p className="mb-0">{failure.messageText}</p>}
        </AlertBox>
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
      <div className="d-flex align-items-center gap-2 mb-2">
        <h2 className="h6 mb-0" id="analysis-history-title">
          {t('analysis.history')}
        </h2>
        <Button
          variant="outline-secondary"
          size="sm"
          onClick={() => void dispatch(analysisHistoryRequested())}
        >
          {t('analysis.refresh')}
        </Button>
        {inProgress && <span className="small text-body-secondary">{t('analysis.autoRefresh')}</span>}
      </div>
      {historyFailure && (
        <AlertBox variant="danger" role="alert">
          <p className="mb-0 fw-bold">{text(historyFailure.messageKey)}</p>
          {historyFailure.messageText && <p className="mb-0">{historyFailure.messageText}</p>}
        </AlertBox>
      )}
      <Table bordered size="sm" aria-labelledby="analysis-history-title">
        <thead>
          <tr>
            {header('inseq', t('analysis.inseq'))}
            <th scope="col">{t('analysis.method')}</th>
            {header('status', t('analysis.status'))}
            <th scope="col">{t('analysis.progress')}</th>
            <th scope="col">{t('analysis.result')}</th>
            <th scope="col">{t('analysis.env')}</th>
            {header('created_at', t('analysis.createdAt'))}
            {header('updated_at', t('analysis.updatedAt'))}
          </tr>
        </thead>
        <tbody>
          {history.length === 0 ? (
            <tr>
              <td colSpan={8}>{t('analysis.noHistory')}</td>
            </tr>
          ) : (
            history.map((h) => (
              <tr key={h.id} data-request-id={h.id} data-status={h.status}>
                <td>{h.inseq}</td>
                <td>{t(`analysis.methods.${h.method}`, { defaultValue: String(h.method) })}</td>
                <td className={h.status === 'error' ? 'text-danger fw-bold' : undefined}>
                  {t(`analysis.statuses.${h.status}`, { defaultValue: h.status })}
                </td>
                <td style={{ minWidth: 180 }}>
                  <ProgressMeter
                    percent={h.progress.percent}
                    variant={h.progress.failed ? 'danger' : undefined}
                    label={t('analysis.progressLabel', { inseq: h.inseq })}
                    className="mb-1"
                  />
                  <span className="small">
                    {t('analysis.progressText', { done: h.progress.done, total: h.progress.total })}
                    {h.progress.failed > 0 &&
                      ` ${t('analysis.progressFailed', { count: h.progress.failed })}`}
                  </span>
                </td>
                <td className="small">{h.result}</td>
                <td>{h.env}</td>
                <td>
                  <DateTime value={h.createdAt} />
                </td>
                <td>
                  <DateTime value={h.updatedAt} />
                </td>
              </tr>
            ))
          )}
        </tbody>
      </Table>
    </div>
  );
}
