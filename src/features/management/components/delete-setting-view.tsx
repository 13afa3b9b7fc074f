import { useEffect, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { AlertBox } from '../../../components/ui/alert-box';
import Button from 'react-bootstrap/Button';
import Table from 'react-bootstrap/Table';
import { useAppDispatch, useAppSelector } from '../../../app/hooks';
import { MODAL_IDS } from '../../../components/modals/modal-ids';
import { useText } from '../../../components/ui/use-text';
import type { RetentionRow } from '../../../api/cleaner';
import { selectManagement } from '../management-slice';
import { retentionGroupsRequested, retentionRequested, retentionSubmitted } from '../management-thunks';
import type { FieldErrors } from '../management-validation';
import { useFieldMessage } from '../../../components/ui/form-fields';
import { deferredPart } from '../../../components/ui/deferred-part';
import { DateTime } from '../../../components/ui/date-time';

const SYSTEM_KIND: Record<number, 'systemLog' | 'monitorHistory' | 'default'> = {
  [-1]: 'systemLog',
  [-2]: 'monitorHistory',
  [-3]: 'default',
};

// The add and update modal (react-bootstrap's Modal) is closed when the page first shows: it loads right after.
const RetentionModal = deferredPart(() => import('./retention-modal').then((m) => m.RetentionModal)).Part;

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
        <AlertBox variant="danger">
          {retention.failure?.messageText ?? text(retention.failure?.messageKey ?? 'management:loadFailed')}
        </AlertBox>
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
      <RetentionModal
        needed={editing !== null}
        mode={editing?.mode ?? null}
        modalId={modalId}
        kindLabel={editing?.mode === 'edit' ? kindOf(editing.row) : ''}
        groups={groups}
        groupId={groupId}
        days={days}
        groupError={message(errors.groupId)}
        daysError={message(errors.duration)}
        onGroupId={setGroupId}
        onDays={setDays}
        onSubmit={(e) => void submit(e)}
        onClose={() => setEditing(null)}
      />
    </div>
  );
}
