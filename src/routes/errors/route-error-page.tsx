import { Component, useEffect, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { PageTitle } from '../../components/layout/page-title';
import { ForbiddenContent } from './forbidden-content';
import { NotFoundContent } from './not-found-content';
import { claimChunkReload, isChunkLoadError } from './chunk-reload';

/** The status of a route error: its numeric `status` (a Response, an API error), else 500 (spec §8). */
export function errorStatus(error: unknown): number {
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

/**
 * A page's code that could not be loaded even after the automatic reload (a network that keeps failing): what
 * to do, in the user's language, and a retry that keeps the login (the session survives a reload).
 */
function ChunkLoadFailed() {
  const { t } = useTranslation('layout');
  return (
    <section data-status={500} data-error="chunk-load">
      <PageTitle>{t('errorPage.chunkFailedTitle')}</PageTitle>
      <p>{t('errorPage.chunkFailed')}</p>
      <p>
        <button type="button" className="btn btn-primary" onClick={() => window.location.reload()}>
          {t('errorPage.retry')}
        </button>
      </p>
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

/**
 * What a page that failed to render shows: 403, 404, chunk-load reload (then, within its 60 s guard, a retry), or
 * a generic error with its status.
 */
export function RouteErrorPage({ error }: { error: unknown }) {
  const { t } = useTranslation('layout');
  const reloading = useChunkReload(error);

  if (reloading) {
    return (
      <p role="status" aria-live="polite">
        {t('errorPage.reloading')}
      </p>
    );
  }
  if (isChunkLoadError(error)) return <ChunkLoadFailed />;
  const status = errorStatus(error);
  if (status === 403) return <ForbiddenContent />;
  if (status === 404) return <NotFoundContent />;
  const detail = error instanceof Error ? error.message : null;
  return <GenericError status={status} detail={detail} />;
}

interface BoundaryProps {
  children: ReactNode;
  /** A new value (the next navigation) clears a caught error, so the next page renders. */
  resetKey?: string;
}

/** Catches what a page throws while it loads or renders, and shows RouteErrorPage in its place. */
export class RouteErrorBoundary extends Component<
  BoundaryProps,
  { error: unknown; key: string | undefined }
> {
  override state = { error: null as unknown, key: this.props.resetKey };

  static getDerivedStateFromError(error: unknown) {
    return { error: error ?? new Error('unknown error') };
  }

  static getDerivedStateFromProps(props: BoundaryProps, state: { error: unknown; key: string | undefined }) {
    return props.resetKey === state.key ? null : { error: null, key: props.resetKey };
  }

  override componentDidCatch(error: unknown) {
    if (error instanceof Error) console.error('[route]', error);
  }

  override render() {
    return this.state.error ? <RouteErrorPage error={this.state.error} /> : this.props.children;
  }
}
