import type { FeatureDef } from '../../app/features';
import { examineesFeature } from '../../features/examinees/examinees-feature';
import { managementFeature } from '../../features/management/management-feature';
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

export const features: readonly FeatureDef[] = [examineesFeature, managementFeature];
