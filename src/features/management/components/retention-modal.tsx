import type { FormEvent } from 'react';
import Button from 'react-bootstrap/Button';
import Modal from 'react-bootstrap/Modal';
import { useTranslation } from 'react-i18next';
import { SelectField, TextField } from '../../../components/ui/form-fields';

export interface RetentionModalProps {
  /** Open: adding a group's row, or editing the row named `kindLabel`; closed: null. */
  mode: 'create' | 'edit' | null;
  modalId: string;
  kindLabel: string;
  groups: { id: number; name: string; code: string }[];
  groupId: string;
  days: string;
  groupError?: string;
  daysError?: string;
  onGroupId: (v: string) => void;
  onDays: (v: string) => void;
  onSubmit: (e: FormEvent) => void;
  onClose: () => void;
}

/**
 * The add and update modal of /delete-setting (a group and its retention days). Its own chunk
 * (react-bootstrap's Modal): DeleteSettingView loads it right after the page shows.
 */
export function RetentionModal({
  mode,
  modalId,
  kindLabel,
  groups,
  groupId,
  days,
  groupError,
  daysError,
  onGroupId,
  onDays,
  onSubmit,
  onClose,
}: RetentionModalProps) {
  const { t } = useTranslation('management');
  return (
    <Modal show={mode !== null} onHide={onClose} id={modalId} aria-labelledby={`${modalId}-title`}>
      <form onSubmit={onSubmit} noValidate>
        <Modal.Header closeButton closeLabel={t('close')}>
          <Modal.Title id={`${modalId}-title`}>
            {mode === 'create' ? t('retention.add') : t('retention.edit')}
          </Modal.Title>
        </Modal.Header>
        <Modal.Body>
          {mode === 'create' ? (
            <SelectField
              id="retention-group"
              label={t('retention.group')}
              value={groupId}
              emptyLabel={t('select')}
              options={groups.map((g) => ({ value: g.id, label: `${g.name} (${g.code})` }))}
              error={groupError}
              onChange={onGroupId}
            />
          ) : (
            mode && <p>{kindLabel}</p>
          )}
          <TextField
            id="retention-days"
            inputMode="numeric"
            label={t('retention.days')}
            value={days}
            error={daysError}
            onChange={onDays}
          />
        </Modal.Body>
        <Modal.Footer>
          <Button variant="secondary" onClick={onClose}>
            {t('cancel')}
          </Button>
          <Button type="submit">{t('save')}</Button>
        </Modal.Footer>
      </form>
    </Modal>
  );
}
