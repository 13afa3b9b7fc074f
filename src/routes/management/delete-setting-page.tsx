import type { FeatureDef } from '../../app/features';
import { managementFeature } from '../../features/management/management-feature';
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

export const features: readonly FeatureDef[] = [managementFeature];
