import Offcanvas from 'react-bootstrap/Offcanvas';
import { useTranslation } from 'react-i18next';
import { useAppDispatch, useAppSelector } from '../../../app/hooks';
import type { RootState } from '../../../app/store';
import { chatClosed, selectChatTesterId, selectPane, selectPaneNumber } from '../monitoring-slice';
import { PaneChat } from './pane-chat';

/**
 * The chat with one examinee, in a panel at the side (the panes stay in view): opened from the pane's chat
 * button or C, closed with Esc or its close button (the focus goes back where it was).
 */
export function ChatPanel() {
  const { t } = useTranslation('monitoring');
  const dispatch = useAppDispatch();
  const testerId = useAppSelector(selectChatTesterId);
  const pane = useAppSelector((s: RootState) => (testerId === null ? undefined : selectPane(s, testerId)));
  const number = useAppSelector((s: RootState) => (testerId === null ? 0 : selectPaneNumber(s, testerId)));
  const name = pane ? (pane.name ?? pane.loginId) : '';
  return (
    <Offcanvas
      show={pane !== undefined}
      onHide={() => dispatch(chatClosed())}
      placement="end"
      aria-labelledby="chat-panel-title"
      data-testid="chat-panel"
      data-tester-id={testerId ?? undefined}
      restoreFocus
      // The panel takes the focus as it opens; the comment field is where the checker starts typing.
      onEntered={(node: HTMLElement) => node.querySelector<HTMLInputElement>('input')?.focus()}
    >
      <Offcanvas.Header closeButton closeLabel={t('chatPanel.close')}>
        <Offcanvas.Title id="chat-panel-title" as="h2" className="h5">
          {t('chatPanel.title', { name, pane: number })}
        </Offcanvas.Title>
      </Offcanvas.Header>
      <Offcanvas.Body>
        {pane && testerId !== null && <PaneChat testerId={testerId} name={name} autoFocus />}
      </Offcanvas.Body>
    </Offcanvas>
  );
}
