import type { FeatureDef } from '../../app/features';
import { managementFeature } from '../../features/management/management-feature';
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

export const features: readonly FeatureDef[] = [managementFeature];
