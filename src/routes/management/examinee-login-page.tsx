import type { FeatureDef } from '../../app/features';
import { examineesFeature } from '../../features/examinees/examinees-feature';
import { managementFeature } from '../../features/management/management-feature';
import { useTranslation } from 'react-i18next';
import { PendingPage } from '../../components/layout/pending-page';

/** /examinees/{id}/login: titled in the layout until its issue builds the page (issue #2). */
export default function ExamineeLoginPage() {
  const { t } = useTranslation('pages');
  return <PendingPage title={t('titles.examineeLogin')} note={t('pending.examineeLogin')} />;
}

export const features: readonly FeatureDef[] = [examineesFeature, managementFeature];
