import { useEffect, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { AlertBox } from '../../../components/ui/alert-box';
import Button from 'react-bootstrap/Button';
import Col from 'react-bootstrap/Col';
import Row from 'react-bootstrap/Row';
import { useAppDispatch, useAppSelector } from '../../../app/hooks';
import { SafeHtml } from '../../../components/ui/safe-html';
import { useText } from '../../../components/ui/use-text';
import { selectManagement } from '../management-slice';
import { templateSubmitted, templatesRequested } from '../management-thunks';
import type { FieldErrors, TemplateForm } from '../management-validation';
import { SelectField, TextField, useFieldMessage } from '../../../components/ui/form-fields';

/** The templates the pages show, edited here: terms of use, privacy policy, inquiry, examining notes. */
const KINDS = ['terms_of_service', 'privacy_policy', 'inquiry', 'examining_term'] as const;
const LANGS = ['ja', 'en'] as const;

/**
 * /edit-terms: pick kind, template id and language; edit title, body (HTML limited to p, h2, h3, ol, ul,
 * li, strong, br) and footer URL; preview the sanitised body; save (the server sanitises it again).
 */
export function EditTermsView() {
  const { t } = useTranslation('management');
  const text = useText();
  const message = useFieldMessage();
  const dispatch = useAppDispatch();
  const { templates } = useAppSelector(selectManagement);
  const [form, setForm] = useState<TemplateForm>({
    kind: KINDS[0],
    templateId: '0',
    lang: 'ja',
    title: '',
    body: '',
    footerUrl: '',
  });
  const [loadedFor, setLoadedFor] = useState<string | null>(null);
  const [errors, setErrors] = useState<FieldErrors>({});
  useEffect(() => {
    void dispatch(templatesRequested());
  }, [dispatch]);

  // The stored template of the selection fills the form when the list arrives, the selection changes, or a
  // save stores a new version (its updatedAt changes: the form then shows the server's sanitised body).
  const row = templates.data.find(
    (r) => r.kind === form.kind && String(r.templateId) === form.templateId.trim() && r.lang === form.lang,
  );
  const key = `${form.kind}:${form.templateId.trim()}:${form.lang}:${row?.updatedAt ?? ''}`;
  if (templates.status === 'succeeded' && loadedFor !== key) {
    setLoadedFor(key);
    setForm({ ...form, title: row?.title ?? '', body: row?.body ?? '', footerUrl: row?.footerUrl ?? '' });
  }
  const ids = [...new Set(templates.data.filter((r) => r.kind === form.kind).map((r) => r.templateId))].sort(
    (a, b) => a - b,
  );
  const stored = row !== undefined;
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const r = await dispatch(templateSubmitted(form));
    setErrors(r.ok ? {} : (r.errors ?? {}));
  };

  return (
    <form onSubmit={(e) => void submit(e)} noValidate aria-labelledby="page-title">
      {templates.status === 'failed' && (
        <AlertBox variant="danger" role="alert">
          {templates.failure?.messageText ?? text(templates.failure?.messageKey ?? 'management:loadFailed')}
        </AlertBox>
      )}
      <Row>
        <Col md={4}>
          <SelectField
            id="terms-kind"
            label={t('terms.kind')}
            value={form.kind}
            options={KINDS.map((k) => ({ value: k, label: t(`terms.kinds.${k}`) }))}
            onChange={(v) => setForm({ ...form, kind: v })}
          />
        </Col>
        <Col md={4}>
          <TextField
            id="terms-template-id"
            label={t('terms.templateId')}
            value={form.templateId}
            inputMode="numeric"
            error={message(errors.templateId)}
            onChange={(v) => setForm({ ...form, templateId: v })}
          />
          <p className="small text-body-secondary mb-2">
            {t('terms.storedIds', { ids: ids.length ? ids.join(', ') : '-' })}
          </p>
        </Col>
        <Col md={4}>
          <SelectField
            id="terms-lang"
            label={t('terms.lang')}
            value={form.lang}
            options={LANGS.map((l) => ({ value: l, label: t(`shortUrl.options.lang.${l}`) }))}
            onChange={(v) => setForm({ ...form, lang: v as TemplateForm['lang'] })}
          />
        </Col>
      </Row>
      {templates.status === 'succeeded' && !stored && (
        <p role="status" className="small">
          {t('terms.newTemplate')}
        </p>
      )}
      <TextField
        id="terms-title"
        label={t('terms.title')}
        value={form.title}
        error={message(errors.title)}
        onChange={(v) => setForm({ ...form, title: v })}
      />
      <TextField
        id="terms-body"
        label={t('terms.body')}
        as="textarea"
        rows={12}
        value={form.body}
        error={message(errors.body)}
        onChange={(v) => setForm({ ...form, body: v })}
      />
      <p className="small text-body-secondary">{t('terms.bodyHelp')}</p>
      <TextField
        id="terms-footer-url"
        label={t('terms.footerUrl')}
        type="url"
        inputMode="url"
        value={form.footerUrl}
        error={message(errors.footerUrl)}
        onChange={(v) => setForm({ ...form, footerUrl: v })}
      />
      <section aria-labelledby="terms-preview-heading" className="border rounded p-3 mb-3">
        <h2 id="terms-preview-heading" className="h5">
          {t('terms.preview')}
        </h2>
        <div className="terms-text" data-testid="terms-preview" tabIndex={0}>
          <SafeHtml html={form.body} className="template-body" />
        </div>
      </section>
      <Button type="submit">{t('save')}</Button>
    </form>
  );
}
