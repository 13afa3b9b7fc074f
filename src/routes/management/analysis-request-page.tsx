import type { FeatureDef, JapaneseTexts } from '../../app/features';
import managementAnalysisJa from '../../i18n/locales/ja/management/analysis.json';
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

export const texts: JapaneseTexts = { 'management/analysis': managementAnalysisJa };
