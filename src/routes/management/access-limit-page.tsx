import { AccessLimitView } from '../../features/management/components/access-limit-view';
import { ManagementShell } from './management-shell';

/** /access-limit. */
export default function AccessLimitPage() {
  return (
    <ManagementShell page="accessLimit">
      <AccessLimitView />
    </ManagementShell>
  );
}
