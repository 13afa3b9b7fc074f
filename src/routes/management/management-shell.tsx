import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { useAppSelector } from '../../app/hooks';
import { canAccess, type PageId } from '../../app/permissions';
import { PageTitle } from '../../components/layout/page-title';
import { selectActor } from '../../features/session/session-slice';
import { href } from '@/config/paths';

/** The management layout (PRE00007 pages): the page title and, for those who may open it, the way back to the menu. */
export function ManagementShell({ page, children }: { page: PageId; children: ReactNode }) {
  const { t } = useTranslation('pages');
  const actor = useAppSelector(selectActor);
  return (
    <section aria-labelledby="page-title">
      {page !== 'management' && canAccess('management', actor) && (
        <nav aria-label={t('managementMenu.heading')} className="mb-2 small">
          <Link to={href('management')}>{t('managementMenu.back')}</Link>
        </nav>
      )}
      <PageTitle>
        <span id="page-title">{t(`titles.${page}`)}</span>
      </PageTitle>
      {children}
    </section>
  );
}
