import { useEffect, useState, type FormEvent } from 'react';
import Button from 'react-bootstrap/Button';
import { useTranslation } from 'react-i18next';
import { useAppDispatch, useAppSelector } from '../../../app/hooks';
import { deferredPart } from '../../../components/ui/deferred-part';
import { setTitleCount, unlockSound } from '../../../platform/attention';
import { chatRead, selectChatItems, selectChatUnread, selectNewestChatId } from '../tester-slice';
import { chatSent } from '../tester-thunks';
import { TOUCH } from '../../../components/ui/touch';

/**
 * The messages (and their times' code): loaded right after the first render, before the message poll's first
 * answer can bring one; until then a message shows the loading status.
 */
const ChatItems = deferredPart(() => import('./chat-items').then((m) => m.ChatItems)).Part;

/**
 * Chat with the monitor for the whole sitting (spec §2): messages newest first, a text box and Send, and how
 * many of the monitor's messages are unread — shown, announced to screen readers, and counted in the window
 * title while there are any, so a message is not missed while the exam window covers this one. Reading is
 * acknowledged by using the chat (focus, a click, a reply) or the "mark as read" button.
 *
 * @param messageType - webrtc_message type of what the examinee sends: 1 identification, 3 monitoring.
 * @param disabled - no sending (the examinee was removed from the sitting); the history stays readable.
 */
export function ChatPanel({ messageType, disabled = false }: { messageType: 1 | 3; disabled?: boolean }) {
  const { t } = useTranslation('tester');
  const dispatch = useAppDispatch();
  const items = useAppSelector(selectChatItems);
  const unread = useAppSelector(selectChatUnread);
  const newest = useAppSelector(selectNewestChatId);
  const [text, setText] = useState('');
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    setTitleCount(unread);
  }, [unread]);
  useEffect(() => () => setTitleCount(0), []);

  const markRead = () => {
    if (unread > 0) dispatch(chatRead(newest));
  };
  const onSubmit = async (e: FormEvent) => {
    e.preventDefault();
    unlockSound();
    if (!text.trim()) return;
    setBusy(true);
    const ok = await dispatch(chatSent(text, messageType));
    setBusy(false);
    if (ok) setText('');
  };
  return (
    <section
      aria-labelledby="chat-heading"
      className={`border rounded p-3 ${unread > 0 ? 'border-warning border-2' : ''}`}
      data-testid="tester-chat"
      onFocus={markRead}
      onPointerDown={() => {
        unlockSound();
        markRead();
      }}
    >
      <div className="d-flex flex-wrap align-items-center gap-2 mb-2">
        <h2 id="chat-heading" className="h5 mb-0">
          {t('chat.heading')}
        </h2>
        {unread > 0 && (
          <>
            <span className="badge text-bg-warning" data-testid="chat-unread">
              {t('chat.unread', { count: unread })}
            </span>
            <Button size="sm" variant="outline-secondary" onClick={markRead}>
              {t('chat.markRead')}
            </Button>
          </>
        )}
      </div>
      {/* Announced once per change of the count; the list itself is not a live region (it would read every line). */}
      <p className="visually-hidden" aria-live="assertive" aria-atomic="true" data-testid="chat-announcement">
        {unread > 0 ? t('chat.unreadAnnouncement', { count: unread }) : ''}
      </p>
      <form onSubmit={(e) => void onSubmit(e)} className="d-flex gap-2 mb-2">
        <label htmlFor="chat-input" className="visually-hidden">
          {t('chat.inputLabel')}
        </label>
        <input
          id="chat-input"
          className="form-control"
          style={TOUCH}
          value={text}
          maxLength={1000}
          disabled={disabled}
          onChange={(e) => setText(e.target.value)}
          placeholder={t('chat.inputLabel')}
        />
        <Button type="submit" style={TOUCH} disabled={disabled || busy || !text.trim()}>
          {t('chat.send')}
        </Button>
      </form>
      <ul
        className="list-unstyled mb-0"
        style={{ maxHeight: 240, overflowY: 'auto' }}
        aria-label={t('chat.listLabel')}
        data-testid="chat-items"
        tabIndex={0}
      >
        {items.length === 0 && <li className="text-body-secondary">{t('chat.empty')}</li>}
        <ChatItems needed={items.length > 0} items={items} />
      </ul>
    </section>
  );
}
