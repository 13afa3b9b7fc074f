import { useTranslation } from 'react-i18next';
import { useAppSelector } from '../../../app/hooks';
import { selectTester } from '../tester-slice';

/** Spec §4 disconnect flag: announced politely while a network error is in effect. */
export function DisconnectBanner() {
  const { t } = useTranslation('tester');
  const disconnected = useAppSelector((s) => selectTester(s).disconnected);
  return (
    <div aria-live="polite" role="status">
      {disconnected && (
        <div className="alert alert-warning" data-testid="disconnected">
          {t('disconnected')}
        </div>
      )}
    </div>
  );
}
