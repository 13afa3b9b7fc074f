import Spinner from 'react-bootstrap/Spinner';
import { useTranslation } from 'react-i18next';
import { useAppSelector } from '../../../app/hooks';
import { selectIsLoading } from '../layout-slice';

/** Covers the page while layout.loadingCount is above 0 (spec §2). */
export function LoadingOverlay() {
  const loading = useAppSelector(selectIsLoading);
  const { t } = useTranslation('layout');
  if (!loading) return null;
  return (
    <div
      className="loading-overlay"
      role="status"
      aria-busy="true"
      aria-live="polite"
      data-testid="loading-overlay"
    >
      <Spinner animation="border" variant="primary" aria-hidden="true" />
      <span className="visually-hidden">{t('loading')}</span>
    </div>
  );
}
