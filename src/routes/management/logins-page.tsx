import type { FeatureDef } from '../../app/features';
import { managementFeature } from '../../features/management/management-feature';
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

export const features: readonly FeatureDef[] = [managementFeature];
