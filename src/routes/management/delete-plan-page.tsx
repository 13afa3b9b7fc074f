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
