import { useEffect } from 'react';
import Button from 'react-bootstrap/Button';
import { useTranslation } from 'react-i18next';
import { PageTitle } from '../../components/layout/page-title';

/**
 * /close: the end of a JT start-up window (spec §4 cleanup). Tries to close the window; browsers allow it only
 * for windows a script opened, so the text asks the user to close it otherwise.
 */
export default function ClosePage() {
  const { t } = useTranslation('pages');
  useEffect(() => {
    window.close();
  }, []);
  return (
    <section>
      <PageTitle>{t('titles.close')}</PageTitle>
      <p>{t('close.message')}</p>
      <Button variant="primary" onClick={() => window.close()}>
        {t('close.closeButton')}
      </Button>
    </section>
  );
}
