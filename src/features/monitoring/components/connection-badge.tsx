import { useTranslation } from 'react-i18next';
import type { PaneConnection } from '../monitoring-slice';

const STYLE: Record<PaneConnection, { cls: string; icon: string }> = {
  connecting: { cls: 'text-bg-secondary', icon: '\u25cc' },
  live: { cls: 'text-bg-success', icon: '\u25cf' },
  stalled: { cls: 'text-bg-warning', icon: '\u26a0' },
  reconnecting: { cls: 'text-bg-warning', icon: '\u21bb' },
  lost: { cls: 'text-bg-danger', icon: '\u2715' },
};

/** The connection state as text, colour and icon at once (not colour alone: WCAG 1.4.1), announced politely. */
export function ConnectionBadge({ connection }: { connection: PaneConnection }) {
  const { t } = useTranslation('monitoring');
  const s = STYLE[connection];
  return (
    <span
      className={`badge ${s.cls} fs-6`}
      role="status"
      aria-live="polite"
      data-testid="pane-connection"
      data-connection={connection}
    >
      <span aria-hidden="true">{s.icon} </span>
      <span className="visually-hidden">{t('connection.label')}: </span>
      {t(`connection.${connection}`)}
    </span>
  );
}
