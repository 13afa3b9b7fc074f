import type { FeatureDef, JapaneseTexts } from '../../app/features';
import managementDeletePlanJa from '../../i18n/locales/ja/management/deletePlan.json';
import examineesCsvJa from '../../i18n/locales/ja/examinees/csv.json';
import { examineesFeature } from '../../features/examinees/examinees-feature';
import { managementFeature } from '../../features/management/management-feature';
import { DeletePlanView } from '../../features/management/components/delete-plan-view';
import { ManagementShell } from './management-shell';

/** /delete-plan. */
export default function DeletePlanPage() {
  return (
    <ManagementShell page="deletePlan">
      <DeletePlanView />
    </ManagementShell>
  );
}

export const features: readonly FeatureDef[] = [examineesFeature, managementFeature];

export const texts: JapaneseTexts = {
  'management/deletePlan': managementDeletePlanJa,
  'examinees/csv': examineesCsvJa,
};
