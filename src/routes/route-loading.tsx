import { useTranslation } from 'react-i18next';

/** Shown while the first page's code loads (no blank screen). */
export function RouteLoading() {
  const { t } = useTranslation();
  return (
    <div
      className="d-flex justify-content-center align-items-center min-vh-100"
      role="status"
      aria-live="polite"
    >
      <div className="spinner-border text-primary me-2" aria-hidden="true" />
      <span>{t('loading')}</span>
    </div>
  );
}
