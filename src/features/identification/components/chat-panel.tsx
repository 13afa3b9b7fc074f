import { useState, type FormEvent } from 'react';
import Button from 'react-bootstrap/Button';
import { useTranslation } from 'react-i18next';
import { useAppDispatch, useAppSelector } from '../../../app/hooks';
import { selectChatItems } from '../../tester/tester-slice';
import { chatSent } from '../identification-thunks';

const TOUCH = { minHeight: 44, minWidth: 44 };

/** Chat with the monitor (spec §2): messages newest first, a text box and Send. */
export function ChatPanel() {
  const { t } = useTranslation('identification');
  const dispatch = useAppDispatch();
  const items = useAppSelector(selectChatItems);
  const [text, setText] = useState('');
  const [busy, setBusy] = useState(false);
  const onSubmit = async (e: FormEvent) => {
    e.preventDefault();
    if (!text.trim()) return;
    setBusy(true);
    const ok = await dispatch(chatSent(text));
    setBusy(false);
    if (ok) setText('');
  };
  return (
    <section aria-labelledby="chat-heading" className="border rounded p-3">
      <h2 id="chat-heading" className="h5">
        {t('chat.heading')}
      </h2>
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
          onChange={(e) => setText(e.target.value)}
          placeholder={t('chat.inputLabel')}
        />
        <Button type="submit" style={TOUCH} disabled={busy || !text.trim()}>
          {t('chat.send')}
        </Button>
      </form>
      <ul
        className="list-unstyled mb-0"
        style={{ maxHeight: 240, overflowY: 'auto' }}
        aria-label={t('chat.listLabel')}
        aria-live="polite"
        data-testid="chat-items"
        tabIndex={0}
      >
        {items.length === 0 && <li className="text-body-secondary">{t('chat.empty')}</li>}
        {items.map((c) => (
          <li key={c.id} className="mb-1">
            <strong>{c.sendType === 0 ? t('chat.fromChecker') : t('chat.fromTester')}</strong>
            <span className="text-body-secondary small ms-2">{c.createdAt}</span>
            <div>{c.message}</div>
          </li>
        ))}
      </ul>
    </section>
  );
}
