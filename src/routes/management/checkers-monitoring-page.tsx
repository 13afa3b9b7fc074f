import type { FeatureDef } from '../../app/features';
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
