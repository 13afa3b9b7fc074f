import type { FeatureDef } from '../../app/features';
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
