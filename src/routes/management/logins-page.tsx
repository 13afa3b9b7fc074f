import { LoginsView } from '../../features/management/components/logins-view';
import { ManagementShell } from './management-shell';

/** /logins. */
export default function LoginsPage() {
  return (
    <ManagementShell page="logins">
      <LoginsView />
    </ManagementShell>
  );
}
