import type { Root } from 'react-dom/client';
import { i18next, initI18n } from '../i18n';
import { loadRuntimeConfig, type RuntimeConfig } from '../lib/runtime-config';
import { readStartupParams, type OpenedAddress } from '../features/startup/startup-params';
import { restoreSession } from '../features/session/session-storage';

/** How often the page asks for /config.json again by itself while the server cannot be reached. */
export const CONFIG_RETRY_MS = 5000;

/** What the page says while the server cannot be reached (plain markup: it is in the entry chunk). */
function ServerUnreachable({
  busy,
  loggedIn,
  onRetry,
}: {
  busy: boolean;
  loggedIn: boolean;
  onRetry: () => void;
}) {
  return (
    <main className="container py-5">
      <h1 className="h4">{i18next.t('layout:unreachable.title')}</h1>
      <p>{i18next.t('layout:unreachable.message')}</p>
      {loggedIn && <p>{i18next.t('layout:unreachable.session')}</p>}
      <button type="button" className="btn btn-primary" onClick={onRetry}>
        {i18next.t('layout:errorPage.retry')}
      </button>
      <p className="small text-body-secondary mt-2" role="status">
        {busy ? i18next.t('layout:unreachable.retrying') : ''}
      </p>
    </main>
  );
}

/**
 * /config.json could not be reached at start-up (offline, the server down): without it the start-up checks
 * would judge the browser on the defaults and, for an environment only the deployment allows, end on "your OS
 * is not supported". Instead the page says it cannot reach the server, in the start-up language, and asks
 * again every {@link CONFIG_RETRY_MS}, when the browser comes back online, and on the retry button. Resolves
 * with the configuration once it loads: the caller then runs the start-up it was opened for (the same address,
 * its start-up parameters and the stored session), in this page, so a JT start-up's password (already gone
 * from the address bar) is not lost to a reload.
 */
export function untilConfigLoads(
  root: Root,
  opened: OpenedAddress,
  load: () => Promise<RuntimeConfig | null> = loadRuntimeConfig,
): Promise<RuntimeConfig> {
  return new Promise((resolve) => {
    const loggedIn = restoreSession() !== null;
    let busy = false;
    let timer: ReturnType<typeof setInterval> | undefined;
    const show = () => root.render(<ServerUnreachable busy={busy} loggedIn={loggedIn} onRetry={onRetry} />);
    const onRetry = () => void attempt();
    const attempt = async () => {
      if (busy) return;
      busy = true;
      show();
      const config = await load();
      busy = false;
      if (!config) return show();
      clearInterval(timer);
      window.removeEventListener('online', onRetry);
      resolve(config);
    };
    void initI18n(readStartupParams(opened, window.sessionStorage).lang).then(() => {
      show();
      timer = setInterval(onRetry, CONFIG_RETRY_MS);
      window.addEventListener('online', onRetry);
    });
  });
}
