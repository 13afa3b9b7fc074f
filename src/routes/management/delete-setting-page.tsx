import { DeleteSettingView } from '../../features/management/components/delete-setting-view';
import { ManagementShell } from './management-shell';

/** /delete-setting. */
export default function DeleteSettingPage() {
  return (
    <ManagementShell page="deleteSetting">
      <DeleteSettingView />
    </ManagementShell>
  );
}
