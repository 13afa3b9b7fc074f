import Modal from 'react-bootstrap/Modal';
import Button from 'react-bootstrap/Button';

export interface ConfirmModalProps {
  id: string;
  show: boolean;
  title: string;
  message: string;
  okLabel: string;
  cancelLabel: string;
  onAnswer: (confirmed: boolean) => void;
}

/**
 * A confirm modal (spec §8): OK and Cancel. Esc counts as Cancel; a click beside it does nothing (a double
 * click on the button that opened it must not cancel it unseen).
 */
export function ConfirmModal({
  id,
  show,
  title,
  message,
  okLabel,
  cancelLabel,
  onAnswer,
}: ConfirmModalProps) {
  const titleId = `${id}-title`;
  return (
    <Modal
      id={id}
      show={show}
      centered
      backdrop="static"
      onHide={() => onAnswer(false)}
      aria-labelledby={titleId}
    >
      <Modal.Header>
        <Modal.Title id={titleId} as="h2" className="h5">
          {title}
        </Modal.Title>
      </Modal.Header>
      <Modal.Body>
        <p className="mb-0" style={{ whiteSpace: 'pre-wrap' }}>
          {message}
        </p>
      </Modal.Body>
      <Modal.Footer>
        <Button variant="outline-secondary" onClick={() => onAnswer(false)}>
          {cancelLabel}
        </Button>
        <Button variant="primary" onClick={() => onAnswer(true)}>
          {okLabel}
        </Button>
      </Modal.Footer>
    </Modal>
  );
}
