import Button from 'react-bootstrap/Button';
import Modal from 'react-bootstrap/Modal';
import Table from 'react-bootstrap/Table';
import { useTranslation } from 'react-i18next';
import { useAppDispatch, useAppSelector } from '../../../app/hooks';
import { helpToggled, selectHelpOpen } from '../monitoring-slice';

/** The shortcut keys and what they do, in the order the help lists them. */
const KEYS = [
  ['1 … 5', 'panes'],
  ['M', 'mark'],
  ['C', 'chat'],
  ['A', 'accept'],
  ['R', 'reject'],
  ['K', 'kick'],
  ['V', 'volume'],
  ['E', 'enlarge'],
  ['?', 'help'],
  ['Esc', 'escape'],
] as const;

/** The keyboard help (?): every shortcut of the console with what it does. */
export function HelpOverlay() {
  const { t } = useTranslation('monitoring');
  const dispatch = useAppDispatch();
  const open = useAppSelector(selectHelpOpen);
  const close = () => dispatch(helpToggled(false));
  return (
    <Modal
      show={open}
      onHide={close}
      centered
      aria-labelledby="console-help-title"
      data-testid="console-help"
    >
      <Modal.Header closeButton closeLabel={t('help.close')}>
        <Modal.Title id="console-help-title" as="h2" className="h5">
          {t('help.title')}
        </Modal.Title>
      </Modal.Header>
      <Modal.Body>
        <p>{t('help.intro')}</p>
        <Table size="sm" className="mb-0">
          <thead>
            <tr>
              <th scope="col">{t('help.key')}</th>
              <th scope="col">{t('help.action')}</th>
            </tr>
          </thead>
          <tbody>
            {KEYS.map(([key, what]) => (
              <tr key={what}>
                <td>
                  <kbd>{key}</kbd>
                </td>
                <td>{t(`help.keys.${what}`)}</td>
              </tr>
            ))}
          </tbody>
        </Table>
      </Modal.Body>
      <Modal.Footer>
        <Button variant="secondary" onClick={close}>
          {t('help.close')}
        </Button>
      </Modal.Footer>
    </Modal>
  );
}
