import type { FeatureDef } from '../../app/features';
import { monitoringFeature } from '../../features/monitoring/monitoring-feature';
import { useTranslation } from 'react-i18next';
import { PageTitle } from '../../components/layout/page-title';
import { MonitoringConsole } from '../../features/monitoring/components/monitoring-console';

/** /monitoring (PRE00006): the checker's first page, the monitoring console. */
export default function MonitoringPage() {
  const { t } = useTranslation('pages');
  return (
    <div className="px-2">
      {/* A small title: the console needs the screen's height for its panes. */}
      <PageTitle className="px-2 pt-1 h5">{t('titles.monitoring')}</PageTitle>
      <MonitoringConsole />
    </div>
  );
}

export const features: readonly FeatureDef[] = [monitoringFeature];
