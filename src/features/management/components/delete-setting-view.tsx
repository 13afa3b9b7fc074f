import { useEffect, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import Alert from 'react-bootstrap/Alert';
import Button from 'react-bootstrap/Button';
import Modal from 'react-bootstrap/Modal';
import Table from 'react-bootstrap/Table';
import { useAppDispatch, useAppSelector } from '../../../app/hooks';
import { MODAL_IDS } from '../../../components/modals/modal-ids';
import { useText } from '../../../components/ui/use-text';
import type { RetentionRow } from '../../../api/cleaner';
import { selectManagement } from '../management-slice';
import { retentionGroupsRequested, retentionRequested, retentionSubmitted } from '../management-thunks';
import type { FieldErrors } from '../management-validation';
import { SelectField, TextField, useFieldMessage } from '../../../components/ui/form-fields';
import { DateTime } from '../../../components/ui/date-time';

const SYSTEM_KIND: Record<number, 'systemLog' | 'monitorHistory' | 'default'> = {
  [-1]: 'systemLog',
  [-2]: 'monitorHistory',
  [-3]: 'default',
};

type Editing = { mode: 'create' } | { mode: 'edit'; row: RetentionRow } | null;

/** /delete-setting: system rows and per-group rows with add and update modals (spec §2). */
export function DeleteSettingView() {
  const { t } = useTranslation('management');
  const text = useText();
  const message = useFieldMessage();
  const dispatch = useAppDispatch();
  const { retention } = useAppSelector(selectManagement);
  const [editing, setEditing] = useState<Editing>(null);
  const [days, setDays] = useState('');
  const [groupId, setGroupId] = useState('');
  const [groups, setGroups] = useState<{ id: number; name: string; code: string }[]>([]);
  const [errors, setErrors] = useState<FieldErrors>({});
  useEffect(() => {
    void dispatch(retentionRequested());
  }, [dispatch]);

  const kindOf = (r: RetentionRow) => {
    const sys = SYSTEM_KIND[r.groupId];
    return sys
      ? t(`retention.kinds.${sys}`)
      : `${r.group ?? r.groupId}${r.groupCode ? ` (${r.groupCode})` : ''}`;
  };
  const open = async (e: Editing) => {
    setErrors({});
    setGroupId('');
    setDays(e?.mode === 'edit' ? String(e.row.duration) : '');
    setEditing(e);
    if (e?.mode === 'create') {
      const all = await dispatch(retentionGroupsRequested());
      const used = new Set(retention.data.map((r) => r.groupId));
      setGroups(all.filter((g) => !used.has(g.id)));
    }
  };
  const submit = async (ev: FormEvent) => {
    ev.preventDefault();
    if (!editing) return;
    const r = await dispatch(
      editing.mode === 'create'
        ? retentionSubmitted({ mode: 'create', groupId, days })
        : retentionSubmitted({ mode: 'edit', id: editing.row.id, days }),
    );
    if (r.ok) setEditing(null);
    else setErrors(r.errors ?? {});
  };
  const modalId = editing?.mode === 'create' ? MODAL_IDS.deleteSettingCreate : MODAL_IDS.deleteSettingEdit;

  return (
    <div>
      {retention.status === 'failed' && (
        <Alert variant="danger">
          {retention.failure?.messageText ?? text(retention.failure?.messageKey ?? 'management:loadFailed')}
        </Alert>
      )}
      <Button className="mb-2" onClick={() => void open({ mode: 'create' })}>
        {t('retention.add')}
      </Button>
      <Table bordered size="sm">
        <caption>{t('retention.caption')}</caption>
        <thead>
          <tr>
            <th scope="col">{t('retention.kind')}</th>
            <th scope="col">{t('retention.days')}</th>
            <th scope="col">{t('retention.updatedAt')}</th>
            <th scope="col">
              <span className="visually-hidden">{t('retention.actions')}</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {retention.data.map((r) => (
            <tr key={r.id}>
              <td>{kindOf(r)}</td>
              <td>{t('retention.daysValue', { days: r.duration })}</td>
              <td>
                <DateTime value={r.updatedAt} />
              </td>
              <td>
                <Button
                  size="sm"
                  variant="outline-primary"
                  onClick={() => void open({ mode: 'edit', row: r })}
                >
                  {t('retention.editOf', { kind: kindOf(r) })}
                </Button>
              </td>
            </tr>
          ))}
        </tbody>
      </Table>
      <Modal
        show={editing !== null}
        onHide={() => setEditing(null)}
        id={modalId}
        aria-labelledby={`${modalId}-title`}
      >
        <form onSubmit={(e) => void submit(e)} noValidate>
          <Modal.Header closeButton closeLabel={t('close')}>
            <Modal.Title id={`${modalId}-title`}>
              {editing?.mode === 'create' ? t('retention.add') : t('retention.edit')}
            </Modal.Title>
          </Modal.Header>
          <Modal.Body>
            {editing?.mode === 'create' ? (
              <SelectField
                id="retention-group"
                label={t('retention.group')}
                value={groupId}
                emptyLabel={t('select')}
                options={groups.map((g) => ({ value: g.id, label: `${g.name} (${g.code})` }))}
                error={message(errors.groupId)}
                onChange={setGroupId}
              />
            ) : (
              editing && <p>{kindOf(editing.row)}</p>
            )}
            <TextField
              id="retention-days"
              inputMode="numeric"
              label={t('retention.days')}
              value={days}
              error={message(errors.duration)}
              onChange={setDays}
            />
          </Modal.Body>
          <Modal.Footer>
            <Button variant="secondary" onClick={() => setEditing(null)}>
              {t('cancel')}
            </Button>
            <Button type="submit">{t('save')}</Button>
          </Modal.Footer>
        </form>
      </Modal>
    </div>
  );
}
