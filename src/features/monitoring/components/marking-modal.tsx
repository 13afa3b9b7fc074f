import { useEffect, useId, useRef, useState } from 'react';
import Button from 'react-bootstrap/Button';
import Form from 'react-bootstrap/Form';
import Modal from 'react-bootstrap/Modal';
import { useTranslation } from 'react-i18next';
import { useAppDispatch, useAppSelector } from '../../../app/hooks';
import type { RootState } from '../../../app/store';
import { MODAL_IDS } from '../../../components/modals/modal-ids';
import { formatDateTime } from '../monitoring-format';
import { markingClosed, selectMarking, selectPane, selectVisibleMarks } from '../monitoring-slice';
import { markingSaveRequested } from '../monitoring-thunks';

/** Milliseconds since the capture, refreshed in this small component only. */
function TimeLag({ since }: { since: number }) {
  const { t } = useTranslation('monitoring');
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const id = setInterval(() => setNow(Date.now()), 250);
    return () => clearInterval(id);
  }, []);
  return <span data-testid="marking-time-lag">{t('marking.timeLag', { ms: Math.max(0, now - since) })}</span>;
}

/** The marking modal (monitor-marking): the still from the moment it opened, a mark, notify or not, save. */
export function MarkingModal() {
  const { t } = useTranslation('monitoring');
  const dispatch = useAppDispatch();
  const draft = useAppSelector(selectMarking);
  const marks = useAppSelector(selectVisibleMarks);
  const pane = useAppSelector((s: RootState) => (draft ? selectPane(s, draft.testerId) : undefined));
  const [markId, setMarkId] = useState<string>('');
  const [notify, setNotify] = useState(true);
  const markSelectId = useId();
  const markSelect = useRef<HTMLSelectElement>(null);
  const titleId = `${MODAL_IDS.monitorMarking}-title`;
  const show = draft !== null;
  const saving = draft?.status === 'saving';

  const onHide = () => {
    if (saving) return;
    dispatch(markingClosed());
    setMarkId('');
    setNotify(true);
  };
  const onSave = () => {
    const id = Number(markId);
    if (!id) return;
    void dispatch(markingSaveRequested(id, notify)).then((saved) => {
      // A failed save keeps the modal open with the checker's choices, for another try.
      if (!saved) return;
      setMarkId('');
      setNotify(true);
    });
  };
  const name = pane?.name ?? pane?.loginId ?? '';

  return (
    <Modal
      id={MODAL_IDS.monitorMarking}
      show={show}
      onHide={onHide}
      centered
      size="lg"
      aria-labelledby={titleId}
      // The kind of misconduct is what the checker chooses first (keyboard: arrows, then Tab to save).
      onEntered={() => markSelect.current?.focus()}
    >
      <Modal.Header closeButton closeLabel={t('marking.cancel')}>
        <Modal.Title id={titleId} as="h2" className="h5">
          {t('marking.title')}
        </Modal.Title>
      </Modal.Header>
      {draft && (
        <Modal.Body>
          <p className="fw-bold">{t('marking.target', { name, loginId: pane?.loginId ?? '' })}</p>
          <figure className="mb-3">
            {draft.image ? (
              <img
                src={draft.image}
                alt={t('marking.still')}
                className="img-fluid border rounded"
                style={{ maxHeight: 240 }}
                data-testid="marking-still"
              />
            ) : (
              <p className="text-body-secondary" data-testid="marking-no-still">
                {t('marking.noStill')}
              </p>
            )}
            <figcaption className="small">
              <div>{t('marking.capturedAt', { time: formatDateTime(draft.capturedAt) })}</div>
              <TimeLag since={draft.capturedAt} />
            </figcaption>
          </figure>
          <Form.Group className="mb-3" controlId={markSelectId}>
            <Form.Label>{t('marking.mark')}</Form.Label>
            <Form.Select
              ref={markSelect}
              value={markId}
              onChange={(e) => setMarkId(e.target.value)}
              disabled={saving}
              required
            >
              <option value="" disabled>
                {t('marking.mark')}
              </option>
              {marks.map((m) => (
                <option key={m.id} value={m.id}>
                  {t('marking.markOption', { label: m.label, message: m.message, score: m.score })}
                </option>
              ))}
            </Form.Select>
          </Form.Group>
          <fieldset>
            <legend className="fs-6">{t('marking.notification')}</legend>
            <Form.Check
              type="radio"
              id="marking-notify"
              name="marking-notify"
              label={t('marking.notify')}
              checked={notify}
              onChange={() => setNotify(true)}
              disabled={saving}
            />
            <Form.Check
              type="radio"
              id="marking-do-not-notify"
              name="marking-notify"
              label={t('marking.doNotNotify')}
              checked={!notify}
              onChange={() => setNotify(false)}
              disabled={saving}
            />
          </fieldset>
        </Modal.Body>
      )}
      <Modal.Footer>
        <Button variant="outline-secondary" onClick={onHide} disabled={saving}>
          {t('marking.cancel')}
        </Button>
        <Button variant="primary" onClick={onSave} disabled={saving || !markId}>
          {t('marking.save')}
        </Button>
      </Modal.Footer>
    </Modal>
  );
}
