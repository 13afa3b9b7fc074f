import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { PageTitle } from '../../components/layout/page-title';

/** The 403 page: a path the logged-in actor may not open (spec §2). */
export function ForbiddenContent() {
  const { t } = useTranslation('layout');
  return (
    <section data-status="403">
      <PageTitle>{t('errorPage.forbiddenTitle')}</PageTitle>
      <p>{t('errorPage.forbidden')}</p>
      <Link to="/">{t('errorPage.toTop')}</Link>
    </section>
  );
}
