import { useTranslation } from 'react-i18next';
import { formatDateTime } from '../../../lib/dates';
import type { ChatItem } from '../tester-slice';

/**
 * The chat's messages, newest first, each with its time as the deployment's wall clock (README "Times"). A
 * part of its own (chat-panel.tsx): the page's first render has no message yet, and the times' code comes with
 * it.
 */
export function ChatItems({ items }: { items: readonly ChatItem[] }) {
  const { t } = useTranslation('tester');
  return (
    <>
      {items.map((c) => (
        <li key={c.id} className="mb-1">
          <strong>{c.sendType === 0 ? t('chat.fromChecker') : t('chat.fromTester')}</strong>
          <span className="text-body-secondary small ms-2">{formatDateTime(c.createdAt)}</span>
          <div style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>{c.message}</div>
        </li>
      ))}
    </>
  );
}
