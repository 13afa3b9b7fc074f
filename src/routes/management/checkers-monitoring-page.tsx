import type { FeatureDef, JapaneseTexts } from '../../app/features';
import managementMonitoringJa from '../../i18n/locales/ja/management/monitoring.json';
import { managementFeature } from '../../features/management/management-feature';
import { CheckersMonitoringView } from '../../features/management/components/checkers-monitoring-view';
import { ManagementShell } from './management-shell';

/** /checkers/monitoring. */
export default function CheckersMonitoringPage() {
  return (
    <ManagementShell page="checkersMonitoring">
      <CheckersMonitoringView />
    </ManagementShell>
  );
}

export const features: readonly FeatureDef[] = [managementFeature];

export const texts: JapaneseTexts = { 'management/monitoring': managementMonitoringJa };
