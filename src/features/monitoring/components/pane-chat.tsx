import { memo, useId, useRef, useState, type FormEvent } from 'react';
import Button from 'react-bootstrap/Button';
import Form from 'react-bootstrap/Form';
import { useTranslation } from 'react-i18next';
import { useAppDispatch, useAppSelector } from '../../../app/hooks';
import type { RootState } from '../../../app/store';
import { formatDateTime, parseMarker } from '../monitoring-format';
import { selectChat, selectFixedNotifications, type ChatItem } from '../monitoring-slice';
import { chatSent } from '../monitoring-thunks';

/** spec §9: the message list is 388px high. */
export const MESSAGE_LIST_HEIGHT = 388;

const ChatLine = memo(function ChatLine({ item }: { item: ChatItem }) {
  const { t } = useTranslation('monitoring');
  const fromTester = item.sendType === 1;
  const who = fromTester ? t('chat.fromTester') : t('chat.fromChecker');
  let text = item.message;
  let marker = false;
  if (item.kind === 'command') {
    const { marker: m, payload } = parseMarker(item.message);
    if (m) {
      marker = true;
      text = t(`chat.markers.${m}`, { text: payload });
    }
  }
  return (
    <li
      className={`mb-1 px-2 py-1 rounded ${marker ? 'text-body-secondary fst-italic' : fromTester ? 'bg-body-secondary' : 'bg-primary-subtle'}`}
      data-testid="chat-item"
      data-kind={item.kind}
    >
      <span className="small text-body-secondary">
        {who} · {formatDateTime(item.createdAt)}
      </span>
      <div style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>{text}</div>
    </li>
  );
});

/** Chat with one examinee: newest first, canned messages, and a free comment. */
export const PaneChat = memo(function PaneChat({
  testerId,
  name,
  autoFocus = false,
}: {
  testerId: number;
  name: string;
  /** Put the focus in the comment field (the chat panel opened to write). */
  autoFocus?: boolean;
}) {
  const { t } = useTranslation('monitoring');
  const dispatch = useAppDispatch();
  const items = useAppSelector((s: RootState) => selectChat(s, testerId));
  const fixed = useAppSelector(selectFixedNotifications);
  const [text, setText] = useState('');
  const inputRef = useRef<HTMLInputElement>(null);
  const [sending, setSending] = useState(false);
  const inputId = useId();
  const fixedId = useId();

  const send = async (message: string) => {
    setSending(true);
    const ok = await dispatch(chatSent(testerId, message));
    setSending(false);
    return ok;
  };
  const onSubmit = async (e: FormEvent) => {
    e.preventDefault();
    if (await send(text)) setText('');
  };

  return (
    <section aria-label={t('chat.label', { name })} data-testid="pane-chat">
      <Form onSubmit={(e) => void onSubmit(e)} className="mb-2">
        {fixed.length > 0 && (
          <Form.Group className="mb-1" controlId={fixedId}>
            <Form.Label className="small mb-0">{t('chat.fixed')}</Form.Label>
            <Form.Select
              size="sm"
              value=""
              disabled={sending}
              onChange={(e) => {
                // A canned reply fills the comment field; the checker sends it (an arrow key in the list
                // must not send anything by itself).
                const n = fixed.find((f) => String(f.id) === e.target.value);
                if (n) {
                  setText(n.message);
                  inputRef.current?.focus();
                }
              }}
            >
              <option value="">{t('chat.fixedPlaceholder')}</option>
              {fixed.map((f) => (
                <option key={f.id} value={f.id}>
                  {f.message}
                </option>
              ))}
            </Form.Select>
          </Form.Group>
        )}
        <Form.Label htmlFor={inputId} className="small mb-0">
          {t('chat.input')}
        </Form.Label>
        <div className="d-flex gap-1">
          <Form.Control
            ref={inputRef}
            id={inputId}
            autoFocus={autoFocus}
            size="sm"
            value={text}
            maxLength={1000}
            onChange={(e) => setText(e.target.value)}
            disabled={sending}
          />
          <Button
            type="submit"
            size="sm"
            disabled={sending || !text.trim()}
            style={{ minWidth: 48, minHeight: 32 }}
          >
            {t('chat.send')}
          </Button>
        </div>
      </Form>

      {/* The log region wraps the list: role="log" on the <ul> itself would take away its list semantics. */}
      <div
        className="border rounded p-1 overflow-auto"
        style={{ height: MESSAGE_LIST_HEIGHT }}
        role="log"
        aria-live="polite"
        aria-label={t('chat.list')}
        tabIndex={0}
        data-testid="chat-list"
      >
        <ul className="list-unstyled mb-0">
          {items.length === 0 && <li className="text-body-secondary small">{t('chat.empty')}</li>}
          {items.map((m) => (
            <ChatLine key={m.id} item={m} />
          ))}
        </ul>
      </div>
    </section>
  );
});
