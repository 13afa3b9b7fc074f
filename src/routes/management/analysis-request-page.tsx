import { AnalysisRequestView } from '../../features/management/components/analysis-request-view';
import { ManagementShell } from './management-shell';

/** /analysis-request. */
export default function AnalysisRequestPage() {
  return (
    <ManagementShell page="analysisRequest">
      <AnalysisRequestView />
    </ManagementShell>
  );
}
