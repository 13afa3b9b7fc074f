import { useEffect, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { AlertBox } from '../../../components/ui/alert-box';
import Button from 'react-bootstrap/Button';
import Col from 'react-bootstrap/Col';
import Form from 'react-bootstrap/Form';
import Row from 'react-bootstrap/Row';
import Table from 'react-bootstrap/Table';
import { useAppDispatch, useAppSelector } from '../../../app/hooks';
import { useText } from '../../../components/ui/use-text';
import { selectManagement, type Failure } from '../management-slice';
import { accessLimitSubmitted, accessLimitsDeleted, accessLimitsRequested } from '../management-thunks';
import type { AccessLimitForm, FieldErrors } from '../management-validation';
import { SelectField, TextField, useFieldMessage } from '../../../components/ui/form-fields';

const EMPTY: AccessLimitForm = { server: '', ip: '', domain: '', actor: '' };

/** /access-limit: the rules table with delete of selected rows, and the insert form (spec §2, §5). */
export function AccessLimitView() {
  const { t } = useTranslation('management');
  const text = useText();
  const message = useFieldMessage();
  const dispatch = useAppDispatch();
  const { accessLimits } = useAppSelector(selectManagement);
  const [form, setForm] = useState<AccessLimitForm>(EMPTY);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [failure, setFailure] = useState<Failure | null>(null);
  const [selected, setSelected] = useState<number[]>([]);
  useEffect(() => {
    void dispatch(accessLimitsRequested());
  }, [dispatch]);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const r = await dispatch(accessLimitSubmitted(form));
    setErrors(r.ok ? {} : (r.errors ?? {}));
    setFailure(r.ok ? null : (r.failure ?? null));
    if (r.ok) setForm(EMPTY);
  };
  const remove = async () => {
    const r = await dispatch(accessLimitsDeleted(selected));
    setErrors(r.ok ? {} : (r.errors ?? {}));
    setFailure(r.ok ? null : (r.failure ?? null));
    if (r.ok) setSelected([]);
  };
  const actors = [2, 3, 4, 5].map((a) => ({ value: a, label: t(`actors.${a as 2 | 3 | 4 | 5}`) }));
  const rows = accessLimits.data;

  return (
    <div>
      {failure && (
        <AlertBox variant="danger" role="alert">
          {failure.messageText ?? text(failure.messageKey)}
        </AlertBox>
      )}
      <form
        onSubmit={(e) => void submit(e)}
        noValidate
        className="border rounded p-3 mb-3"
        aria-labelledby="al-form-heading"
      >
        <h2 id="al-form-heading" className="h5">
          {t('accessLimit.add')}
        </h2>
        <Row>
          <Col md={3}>
            <TextField
              id="al-server"
              label={t('accessLimit.server')}
              value={form.server}
              error={message(errors.server)}
              onChange={(v) => setForm({ ...form, server: v })}
            />
          </Col>
          <Col md={3}>
            <TextField
              id="al-ip"
              label={t('accessLimit.ip')}
              value={form.ip}
              error={message(errors.ip)}
              onChange={(v) => setForm({ ...form, ip: v })}
            />
          </Col>
          <Col md={3}>
            <TextField
              id="al-domain"
              label={t('accessLimit.domain')}
              value={form.domain}
              error={message(errors.domain)}
              onChange={(v) => setForm({ ...form, domain: v })}
            />
          </Col>
          <Col md={3}>
            <SelectField
              id="al-actor"
              label={t('accessLimit.actor')}
              value={form.actor}
              emptyLabel={t('select')}
              options={actors}
              error={message(errors.actor)}
              onChange={(v) => setForm({ ...form, actor: v })}
            />
          </Col>
        </Row>
        <Button type="submit">{t('accessLimit.insert')}</Button>
      </form>
      {rows.length === 0 ? (
        <p role="status">{t('accessLimit.empty')}</p>
      ) : (
        <Table bordered size="sm" responsive>
          <caption>{t('accessLimit.caption')}</caption>
          <thead>
            <tr>
              <th scope="col">
                <span className="visually-hidden">{t('selectColumn')}</span>
              </th>
              <th scope="col">{t('accessLimit.server')}</th>
              <th scope="col">{t('accessLimit.ip')}</th>
              <th scope="col">{t('accessLimit.domain')}</th>
              <th scope="col">{t('accessLimit.actor')}</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.id}>
                <td>
                  <Form.Check
                    aria-label={t('accessLimit.selectRow', { value: r.ip ?? r.domain ?? '' })}
                    checked={selected.includes(r.id)}
                    onChange={() =>
                      setSelected(
                        selected.includes(r.id) ? selected.filter((x) => x !== r.id) : [...selected, r.id],
                      )
                    }
                  />
                </td>
                <td>{r.server || t('accessLimit.allServers')}</td>
                <td>{r.ip ?? ''}</td>
                <td>{r.domain ?? ''}</td>
                <td>{[2, 3, 4, 5].includes(r.actor) ? t(`actors.${r.actor as 2 | 3 | 4 | 5}`) : r.actor}</td>
              </tr>
            ))}
          </tbody>
        </Table>
      )}
      <div>
        <Button
          variant="outline-danger"
          aria-describedby={errors.ids ? 'al-delete-error' : undefined}
          onClick={() => void remove()}
        >
          {t('accessLimit.delete')}
        </Button>
        {errors.ids && (
          <div id="al-delete-error" className="invalid-feedback d-block" role="alert">
            {message(errors.ids)}
          </div>
        )}
      </div>
    </div>
  );
}
