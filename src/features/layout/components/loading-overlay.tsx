import Spinner from 'react-bootstrap/Spinner';
import { useTranslation } from 'react-i18next';
import { useAppSelector } from '../../../app/hooks';
import { selectIsLoading } from '../layout-slice';

/**
 * Covers the page while layout.loadingCount is above 0 (spec §2), with the loading bar of spec §9: it shows
 * only once a load has lasted 200 ms (the throttle: quick answers do not flash the page) and fills over 5 s
 * (its duration). Both are CSS (styles.css `.loading-overlay`, `.loading-bar`): no timer to clear.
 */
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
      <div className="loading-bar" aria-hidden="true" data-testid="loading-bar" />
      <Spinner animation="border" variant="primary" aria-hidden="true" />
      <span className="visually-hidden">{t('loading')}</span>
    </div>
  );
}
