import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { PageTitle } from '../../components/layout/page-title';

/** The 404 page: no route matches, or a validity check failed (spec §2: 'This page could not be found'). */
export function NotFoundContent() {
  const { t } = useTranslation('layout');
  return (
    <section data-status="404">
      <PageTitle>{t('errorPage.notFoundTitle')}</PageTitle>
      <p>{t('errorPage.notFound')}</p>
      <Link to="/">{t('errorPage.toTop')}</Link>
    </section>
  );
}
