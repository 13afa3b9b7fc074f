import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation, useParams, useSearchParams } from 'react-router-dom';
import { IconButton, CLOSE_ICON } from '../../components/ui/icon-button';

/** Alerting ids of spec §2 start-up checks and errors → their message keys (alerting:messages.*). */
const MESSAGE_BY_ID = {
  'excluded-os': 'messages.excludedOs',
  'excluded-os-version': 'messages.excludedOsVersion',
  'excluded-browser': 'messages.excludedBrowser',
  'excluded-browser-version': 'messages.excludedBrowserVersion',
  'popup-block': 'messages.popupBlock',
  'storage-block': 'messages.storageBlock',
  'system-error': 'messages.systemError',
  'not-found': 'messages.notFound',
} as const;

type KnownId = keyof typeof MESSAGE_BY_ID;

function isKnownId(id: string | undefined): id is KnownId {
  return id !== undefined && Object.prototype.hasOwnProperty.call(MESSAGE_BY_ID, id);
}

/** `{statusCode}` from location.state, given as an object or as JSON text. */
export function statusCodeFromState(state: unknown): number | null {
  let v = state;
  if (typeof v === 'string') {
    try {
      v = JSON.parse(v) as unknown;
    } catch {
      return null;
    }
  }
  const code = (v as { statusCode?: unknown } | null)?.statusCode;
  return typeof code === 'number' && Number.isInteger(code) ? code : null;
}

/**
 * /alerting/{id?} (spec §2): titled エラー, heading ページ表示エラー, a close-window icon; the message of the id,
 * else the `message` query, else a `{statusCode}` in location.state, else the default bad-request text.
 */
export default function AlertingPage() {
  const { t } = useTranslation('alerting');
  const { id } = useParams();
  const [search] = useSearchParams();
  const location = useLocation();
  const queryMessage = (search.get('message') ?? '').trim();
  const statusCode = statusCodeFromState(location.state);

  let body: ReactNode;
  if (isKnownId(id)) {
    body = <p data-testid="alerting-message">{t(MESSAGE_BY_ID[id])}</p>;
  } else if (queryMessage) {
    body = <p data-testid="alerting-message">{queryMessage}</p>;
  } else if (statusCode === 404) {
    body = <p data-testid="alerting-message">{t('messages.notFound')}</p>;
  } else if (statusCode !== null) {
    body = (
      <>
        <p data-testid="alerting-message">
          {statusCode >= 500 ? t('messages.systemError') : t('messages.badRequest')}
        </p>
        <p className="small text-body-secondary">
          {t('statusCode')}: <code data-testid="alerting-status">{JSON.stringify({ statusCode })}</code>
        </p>
      </>
    );
  } else {
    body = <p data-testid="alerting-message">{t('messages.badRequest')}</p>;
  }

  return (
    <section className="mx-auto" style={{ maxWidth: 640 }} aria-labelledby="alerting-heading">
      <div className="d-flex align-items-start justify-content-between gap-2 mb-3">
        <h1 id="alerting-heading" className="h3 mb-0">
          {t('heading')}
        </h1>
        <IconButton label={t('closeWindow')} icon={CLOSE_ICON} onClick={() => window.close()} />
      </div>
      <div className="alert alert-danger" role="alert">
        {body}
      </div>
    </section>
  );
}
