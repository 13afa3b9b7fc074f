import { useTranslation } from 'react-i18next';
import { ManagementShell } from './management-shell';

/** /logview: spec §2 "Log search page; title only" — the search needs a server endpoint (issue #7). */
export default function LogviewPage() {
  const { t } = useTranslation('management');
  return (
    <ManagementShell page="logview">
      <p className="text-body-secondary">{t('logview.note')}</p>
    </ManagementShell>
  );
}
