import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { AlertBox } from '../../../components/ui/alert-box';
import Button from 'react-bootstrap/Button';
import Tab from 'react-bootstrap/Tab';
import Tabs from 'react-bootstrap/Tabs';
import { useAppDispatch } from '../../../app/hooks';
import { useText } from '../../../components/ui/use-text';
import type { Failure } from '../management-slice';
import { deletePlanDownloaded } from '../management-thunks';
import type { FieldErrors } from '../management-validation';
import { TextField, useFieldMessage } from '../../../components/ui/form-fields';

function today(): string {
  const d = new Date();
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}

function PlanTab({ planKey }: { planKey: 'tester' | 'record' }) {
  const { t } = useTranslation('management');
  const text = useText();
  const message = useFieldMessage();
  const dispatch = useAppDispatch();
  const [date, setDate] = useState(today());
  const [errors, setErrors] = useState<FieldErrors>({});
  const [failure, setFailure] = useState<Failure | null>(null);
  const download = async () => {
    const r = await dispatch(deletePlanDownloaded(planKey, date));
    setErrors(r.ok ? {} : (r.errors ?? {}));
    setFailure(r.ok ? null : (r.failure ?? null));
  };
  return (
    <div className="pt-3">
      <TextField
        id={`plan-date-${planKey}`}
        type="date"
        label={t('deletePlan.date')}
        value={date}
        error={message(errors.date)}
        onChange={setDate}
        className="mb-2 w-auto"
      />
      <Button onClick={() => void download()}>{t('deletePlan.download')}</Button>
      {failure && (
        <AlertBox variant="danger" className="mt-2" role="alert">
          <p className="mb-0 fw-bold">{t('deletePlan.failed')}</p>
          {failure.messageText ?? text(failure.messageKey)}
        </AlertBox>
      )}
    </div>
  );
}

/** /delete-plan: tester and video tabs, each with a date and its CSV (cleaner/csv). */
export function DeletePlanView() {
  const { t } = useTranslation('management');
  return (
    <Tabs defaultActiveKey="tester" id="delete-plan-tabs">
      <Tab eventKey="tester" title={t('deletePlan.tester')}>
        <PlanTab planKey="tester" />
      </Tab>
      <Tab eventKey="record" title={t('deletePlan.record')}>
        <PlanTab planKey="record" />
      </Tab>
    </Tabs>
  );
}
