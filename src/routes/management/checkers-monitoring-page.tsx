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
