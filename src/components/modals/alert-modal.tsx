import Modal from 'react-bootstrap/Modal';
import Button from 'react-bootstrap/Button';

export type AlertModalType = 'success' | 'caution' | 'error';

const HEADER_CLASS: Record<AlertModalType, string> = {
  success: 'text-success',
  caution: 'text-warning-emphasis',
  error: 'text-danger',
};

export interface AlertModalProps {
  /** DOM id (spec §2 modal ids). */
  id: string;
  show: boolean;
  type: AlertModalType;
  title: string;
  message: string;
  closeLabel: string;
  onClose: () => void;
}

/**
 * An alert (spec §8): success, caution or error. It cannot be closed by the backdrop or Esc — only by its
 * close button — so the user has read it.
 */
export function AlertModal({ id, show, type, title, message, closeLabel, onClose }: AlertModalProps) {
  const titleId = `${id}-title`;
  return (
    <Modal
      id={id}
      show={show}
      backdrop="static"
      keyboard={false}
      centered
      aria-labelledby={titleId}
      data-alert-type={type}
    >
      <Modal.Header>
        <Modal.Title id={titleId} as="h2" className={`h5 ${HEADER_CLASS[type]}`}>
          {title}
        </Modal.Title>
      </Modal.Header>
      <Modal.Body>
        <p className="mb-0" style={{ whiteSpace: 'pre-wrap' }}>
          {message}
        </p>
      </Modal.Body>
      <Modal.Footer>
        <Button variant="primary" onClick={onClose}>
          {closeLabel}
        </Button>
      </Modal.Footer>
    </Modal>
  );
}
