import type { ReactNode } from 'react';
import Col from 'react-bootstrap/Col';
import Row from 'react-bootstrap/Row';
import { CheckField, SelectField, TextField, useFieldMessage, type FieldMessageLike } from './form-fields';

/** The names of the fields of F whose values are of type V. */
type FieldName<F, V> = { [K in keyof F]-?: F[K] extends V ? K : never }[keyof F] & string;

/** One field of a FieldGrid; `name` binds it to a value of the form (and to its error, if any). */
export type GridField<F> = { id: string; label: string } & (
  | {
      kind: 'text';
      name: FieldName<F, string>;
      type?: string;
      inputMode?: 'numeric' | 'text' | 'url';
    }
  | {
      kind: 'select';
      name: FieldName<F, string>;
      options: readonly { value: string | number; label: ReactNode }[];
      /** Label of the '' option; no empty option when undefined. */
      emptyLabel?: string;
    }
  | { kind: 'check'; name: FieldName<F, boolean> }
);

/** A column of a FieldGrid: a field, `md` wide, and optionally a second field under it. */
export type GridColumn<F> = GridField<F> & { md: number; under?: GridField<F> };

/**
 * A search form's fields in a Bootstrap row: each shows `values[name]`, its translated error from
 * `errors[name]`, and reports a change as `onEdit({ [name]: value })`.
 */
export function FieldGrid<F extends object>({
  columns,
  values,
  errors,
  onEdit,
}: {
  columns: readonly GridColumn<F>[];
  values: F;
  errors: Partial<Record<string, FieldMessageLike>>;
  onEdit: (patch: Partial<F>) => void;
}) {
  const message = useFieldMessage();
  const edit = (name: string, value: string | boolean) => onEdit({ [name]: value } as Partial<F>);
  const field = (f: GridField<F>) => {
    const value = values[f.name as keyof F];
    switch (f.kind) {
      case 'check':
        return (
          <CheckField id={f.id} label={f.label} checked={Boolean(value)} onChange={(v) => edit(f.name, v)} />
        );
      case 'select':
        return (
          <SelectField
            id={f.id}
            label={f.label}
            value={typeof value === 'string' ? value : ''}
            error={message(errors[f.name])}
            emptyLabel={f.emptyLabel}
            options={f.options}
            onChange={(v) => edit(f.name, v)}
          />
        );
      case 'text':
        return (
          <TextField
            id={f.id}
            type={f.type}
            inputMode={f.inputMode}
            label={f.label}
            value={typeof value === 'string' ? value : ''}
            error={message(errors[f.name])}
            onChange={(v) => edit(f.name, v)}
          />
        );
    }
  };
  return (
    <Row>
      {columns.map((c) => (
        <Col key={c.id} md={c.md}>
          {field(c)}
          {c.under && field(c.under)}
        </Col>
      ))}
    </Row>
  );
}
