import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { isRouteErrorResponse, Link, useRouteError } from 'react-router-dom';
import { PageTitle } from '../../components/layout/page-title';
import { ForbiddenContent } from './forbidden-content';
import { NotFoundContent } from './not-found-content';
import { claimChunkReload, isChunkLoadError } from './chunk-reload';

/** The status of a route error: a thrown Response's status, an error's numeric `status`, else 500 (spec §8). */
export function errorStatus(error: unknown): number {
  if (isRouteErrorResponse(error)) return error.status;
  const s = (error as { status?: unknown } | null)?.status;
  return typeof s === 'number' && s >= 400 ? s : 500;
}

function GenericError({ status, detail }: { status: number; detail: string | null }) {
  const { t } = useTranslation('layout');
  return (
    <section data-status={status}>
      <PageTitle>{t('errorPage.errorTitle')}</PageTitle>
      <p>{t('errorPage.error', { status })}</p>
      {detail && <p className="text-body-secondary small">{detail}</p>}
      <Link to="/">{t('errorPage.toTop')}</Link>
    </section>
  );
}

/** One reload decision per error object, so a re-render (or StrictMode's double render) does not claim twice. */
const reloadDecisions = new WeakMap<object, boolean>();

function decideReload(error: unknown): boolean {
  if (!isChunkLoadError(error)) return false;
  const key = error as object;
  let decision = reloadDecisions.get(key);
  if (decision === undefined) {
    decision = claimChunkReload();
    reloadDecisions.set(key, decision);
  }
  return decision;
}

/** Reloads once after a chunk-load failure (spec §8); false when it is not one or the 60 s guard forbids it. */
function useChunkReload(error: unknown): boolean {
  const reload = decideReload(error);
  useEffect(() => {
    if (reload) window.location.reload();
  }, [reload]);
  return reload;
}

/** The error element of the routes: 403, 404, chunk-load reload, or a generic error with its status. */
export function RouteErrorPage() {
  const error = useRouteError();
  const { t } = useTranslation('layout');
  const reloading = useChunkReload(error);

  if (reloading) {
    return (
      <p role="status" aria-live="polite">
        {t('errorPage.reloading')}
      </p>
    );
  }
  const status = errorStatus(error);
  if (status === 403) return <ForbiddenContent />;
  if (status === 404) return <NotFoundContent />;
  if (!isRouteErrorResponse(error) && error instanceof Error) console.error('[route]', error);
  const detail = isRouteErrorResponse(error) ? null : error instanceof Error ? error.message : null;
  return <GenericError status={status} detail={detail} />;
}
