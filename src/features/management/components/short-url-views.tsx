import { useEffect, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { AlertBox } from '../../../components/ui/alert-box';
import Button from 'react-bootstrap/Button';
import Col from 'react-bootstrap/Col';
import Form from 'react-bootstrap/Form';
import Row from 'react-bootstrap/Row';
import Table from 'react-bootstrap/Table';
import { useAppDispatch, useAppSelector } from '../../../app/hooks';
import { useText } from '../../../components/ui/use-text';
import { selectManagement, shortUrlSaved, type Failure } from '../management-slice';
import { shortUrlDeleted, shortUrlSubmitted, shortUrlsRequested } from '../short-url-thunks';
import type { FieldErrors } from '../management-validation';
import { PARAM_FIELDS, emptyShortUrlForm, shortUrlFormOf, type ShortUrlForm } from '../short-url-fields';
import { SelectField, TextField, useFieldMessage } from '../../../components/ui/form-fields';
import { DateTime } from '../../../components/ui/date-time';
import { runtimeKey } from '../../../lib/translation-key';

/** /create-shorturl-List: every short URL with its working address, edit and delete. */
export function ShortUrlList({ editHref, newHref }: { editHref: (id: number) => string; newHref: string }) {
  const { t } = useTranslation('management');
  const dispatch = useAppDispatch();
  const { shortUrls } = useAppSelector(selectManagement);
  useEffect(() => {
    void dispatch(shortUrlsRequested());
  }, [dispatch]);
  return (
    <div>
      <Link to={newHref} className="btn btn-primary mb-2">
        {t('shortUrl.new')}
      </Link>
      {shortUrls.status === 'succeeded' && shortUrls.data.length === 0 ? (
        <p role="status">{t('shortUrl.empty')}</p>
      ) : (
        <Table bordered size="sm" responsive>
          <caption>{t('shortUrl.caption')}</caption>
          <thead>
            <tr>
              <th scope="col">{t('shortUrl.fields.urlKey')}</th>
              <th scope="col">{t('shortUrl.url')}</th>
              <th scope="col">{t('shortUrl.fields.actor')}</th>
              <th scope="col">{t('shortUrl.fields.target')}</th>
              <th scope="col">{t('shortUrl.updatedAt')}</th>
              <th scope="col">
                <span className="visually-hidden">{t('retention.actions')}</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {shortUrls.data.map((r) => (
              <tr key={r.id}>
                <td>{r.urlKey}</td>
                <td>
                  <a href={r.url} target="_blank" rel="noreferrer">
                    {r.url}
                  </a>
                </td>
                <td>
                  {[1, 2, 3, 4, 5].includes(r.actor) ? t(`actors.${r.actor as 1 | 2 | 3 | 4 | 5}`) : r.actor}
                </td>
                <td>{r.target}</td>
                <td>
                  <DateTime value={r.updatedAt} />
                </td>
                <td className="text-nowrap">
                  <Link to={editHref(r.id)} className="btn btn-sm btn-outline-primary me-1">
                    {t('shortUrl.editOf', { urlKey: r.urlKey })}
                  </Link>
                  <Button
                    size="sm"
                    variant="outline-danger"
                    onClick={() => void dispatch(shortUrlDeleted(r.id, r.urlKey))}
                  >
                    {t('shortUrl.deleteOf', { urlKey: r.urlKey })}
                  </Button>
                </td>
              </tr>
            ))}
          </tbody>
        </Table>
      )}
    </div>
  );
}

/** /create-shorturl(/:id): the registration and edit form with every field of spec §3. */
export function ShortUrlFormView({ id, listHref }: { id?: number; listHref: string }) {
  const { t } = useTranslation('management');
  const text = useText();
  const message = useFieldMessage();
  const dispatch = useAppDispatch();
  const { shortUrls, savedShortUrl } = useAppSelector(selectManagement);
  const [form, setForm] = useState<ShortUrlForm>(emptyShortUrlForm);
  const [loadedId, setLoadedId] = useState<number | undefined>(undefined);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [failure, setFailure] = useState<Failure | null>(null);
  useEffect(() => {
    dispatch(shortUrlSaved(null));
    if (id !== undefined) void dispatch(shortUrlsRequested());
  }, [dispatch, id]);
  const row = id === undefined ? undefined : shortUrls.data.find((r) => r.id === id);
  if (row && loadedId !== row.id) {
    setLoadedId(row.id);
    setForm(shortUrlFormOf(row));
  }
  const setParam = (name: string, v: string | string[]) =>
    setForm({ ...form, param: { ...form.param, [name]: v } });
  // The parameter table (short-url-fields.ts) names the label and option texts.
  const label = (name: string) => text(runtimeKey(`management:shortUrl.fields.${name}`));
  const option = (name: string, v: string | number) =>
    text(runtimeKey(`management:shortUrl.options.${name}.${v}`));
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const r = await dispatch(shortUrlSubmitted(form, id));
    setErrors(r.ok ? {} : (r.errors ?? {}));
    setFailure(r.ok ? null : (r.failure ?? null));
  };
  const flag = [
    { value: 1, label: t('on') },
    { value: 0, label: t('off') },
  ];

  return (
    <form onSubmit={(e) => void submit(e)} noValidate aria-labelledby="page-title">
      {savedShortUrl && (
        <AlertBox variant="success" role="status">
          <p className="mb-1">{t('shortUrl.saved')}</p>
          <a href={savedShortUrl.url} data-testid="saved-short-url" target="_blank" rel="noreferrer">
            {savedShortUrl.url}
          </a>
        </AlertBox>
      )}
      {failure && (
        <AlertBox variant="danger" role="alert">
          <p className="mb-0 fw-bold">{text(failure.messageKey)}</p>
          {failure.messageText && <p className="mb-0">{failure.messageText}</p>}
        </AlertBox>
      )}
      {Object.keys(errors).length > 0 && (
        <AlertBox variant="warning" role="alert">
          {t('shortUrl.invalid')}
        </AlertBox>
      )}
      <Row>
        <Col md={4}>
          <TextField
            id="su-url-key"
            label={t('shortUrl.fields.urlKey')}
            value={form.urlKey}
            error={message(errors.urlKey)}
            onChange={(v) => setForm({ ...form, urlKey: v })}
          />
        </Col>
        <Col md={4}>
          <TextField
            id="su-target"
            label={t('shortUrl.fields.target')}
            value={form.target}
            error={message(errors.target)}
            onChange={(v) => setForm({ ...form, target: v })}
          />
        </Col>
        <Col md={4}>
          <SelectField
            id="su-actor"
            label={t('shortUrl.fields.actor')}
            value={form.actor}
            options={[1, 2, 3, 4, 5].map((a) => ({ value: a, label: t(`actors.${a as 1 | 2 | 3 | 4 | 5}`) }))}
            error={message(errors.actor)}
            onChange={(v) => setForm({ ...form, actor: v })}
          />
        </Col>
        {PARAM_FIELDS.map(([name, kind]) => {
          const id = `su-${name.replace(/_/g, '-')}`;
          const value = form.param[name];
          const err = message(errors[name]);
          if (kind.kind === 'multi') {
            const list = Array.isArray(value) ? value : [];
            return (
              <Col md={6} key={name}>
                <fieldset className="mb-2" aria-describedby={err ? `${id}-error` : undefined}>
                  <legend className="form-label fs-6">{label(name)}</legend>
                  {kind.options.map((o) => (
                    <Form.Check
                      inline
                      key={String(o)}
                      id={`${id}-${o}`}
                      label={option(name, o)}
                      checked={list.includes(String(o))}
                      onChange={(e) =>
                        setParam(
                          name,
                          e.target.checked ? [...list, String(o)] : list.filter((x) => x !== String(o)),
                        )
                      }
                    />
                  ))}
                  {err && (
                    <div id={`${id}-error`} className="invalid-feedback d-block" role="alert">
                      {err}
                    </div>
                  )}
                </fieldset>
              </Col>
            );
          }
          const str = typeof value === 'string' ? value : '';
          if (kind.kind === 'flag' || kind.kind === 'select') {
            const options =
              kind.kind === 'flag' ? flag : kind.options.map((o) => ({ value: o, label: option(name, o) }));
            return (
              <Col md={3} key={name}>
                <SelectField
                  id={id}
                  label={label(name)}
                  value={str}
                  emptyLabel={t('unset')}
                  options={options}
                  error={err}
                  onChange={(v) => setParam(name, v)}
                />
              </Col>
            );
          }
          return (
            <Col md={kind.kind === 'text' && kind.multiline ? 12 : 3} key={name}>
              <TextField
                id={id}
                label={label(name)}
                value={str}
                inputMode={kind.kind === 'number' ? 'numeric' : undefined}
                as={kind.kind === 'text' && kind.multiline ? 'textarea' : undefined}
                rows={3}
                error={err}
                onChange={(v) => setParam(name, v)}
              />
            </Col>
          );
        })}
      </Row>
      <div className="d-flex gap-2">
        <Link to={listHref} className="btn btn-outline-secondary">
          {t('shortUrl.toList')}
        </Link>
        <Button type="submit">{id === undefined ? t('shortUrl.register') : t('shortUrl.update')}</Button>
      </div>
    </form>
  );
}
