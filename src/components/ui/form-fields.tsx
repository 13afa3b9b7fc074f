import type { ReactNode } from 'react';
import Form from 'react-bootstrap/Form';
import { useText } from './use-text';
import type { TranslationKey } from '../../lib/translation-key';

/** A validation message: an i18n key and its values; `fieldKey` is translated into `field`. */
export interface FieldMessageLike {
  key: TranslationKey;
  values?: Record<string, string | number> & { fieldKey?: TranslationKey };
  /** A server message shown as is. */
  text?: string;
}

/** Translates a FieldMessageLike (the label inside a message is itself a key). */
export function useFieldMessage(): (m: FieldMessageLike | undefined) => string {
  const text = useText();
  return (m) => {
    if (!m) return '';
    if (m.text) return m.text;
    const fieldKey = m.values?.fieldKey;
    return text(m.key, { ...m.values, field: typeof fieldKey === 'string' ? text(fieldKey) : '' });
  };
}

interface BaseProps {
  id: string;
  label: string;
  error?: string;
  className?: string;
}

/** The error under a field, tied to it by aria-describedby (`${id}-error`). */
function ErrorText({ id, error }: { id: string; error?: string }) {
  if (!error) return null;
  return (
    <Form.Control.Feedback type="invalid" id={`${id}-error`} className="d-block" role="alert">
      {error}
    </Form.Control.Feedback>
  );
}

export function TextField({
  id,
  label,
  error,
  className,
  value,
  onChange,
  type = 'text',
  inputMode,
  maxLength,
  as,
  rows,
}: BaseProps & {
  value: string;
  onChange: (v: string) => void;
  type?: string;
  inputMode?: 'numeric' | 'text' | 'url';
  maxLength?: number;
  as?: 'textarea';
  rows?: number;
}) {
  return (
    <Form.Group controlId={id} className={className ?? 'mb-2'}>
      <Form.Label>{label}</Form.Label>
      <Form.Control
        type={as ? undefined : type}
        as={as}
        rows={rows}
        value={value}
        inputMode={inputMode}
        maxLength={maxLength}
        isInvalid={Boolean(error)}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? `${id}-error` : undefined}
        onChange={(e) => onChange(e.target.value)}
      />
      <ErrorText id={id} error={error} />
    </Form.Group>
  );
}

export function SelectField({
  id,
  label,
  error,
  className,
  value,
  onChange,
  options,
  emptyLabel,
}: BaseProps & {
  value: string;
  onChange: (v: string) => void;
  options: readonly { value: string | number; label: ReactNode }[];
  /** Label of the '' option; no empty option when undefined. */
  emptyLabel?: string;
}) {
  return (
    <Form.Group controlId={id} className={className ?? 'mb-2'}>
      <Form.Label>{label}</Form.Label>
      <Form.Select
        value={value}
        isInvalid={Boolean(error)}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? `${id}-error` : undefined}
        onChange={(e) => onChange(e.target.value)}
      >
        {emptyLabel !== undefined && <option value="">{emptyLabel}</option>}
        {options.map((o) => (
          <option key={String(o.value)} value={String(o.value)}>
            {o.label}
          </option>
        ))}
      </Form.Select>
      <ErrorText id={id} error={error} />
    </Form.Group>
  );
}

export function CheckField({
  id,
  label,
  checked,
  onChange,
  className,
}: {
  id: string;
  label: string;
  checked: boolean;
  onChange: (v: boolean) => void;
  className?: string;
}) {
  return (
    <Form.Check
      id={id}
      className={className ?? 'mb-2'}
      type="checkbox"
      label={label}
      checked={checked}
      onChange={(e) => onChange(e.target.checked)}
    />
  );
}
