import type { FeatureDef } from '../../app/features';
import { managementFeature } from '../../features/management/management-feature';
import { LogSearchView } from '../../features/management/components/log-search-view';
import { ManagementShell } from './management-shell';

/** /logview: the log search over client, device, audit and server logs. */
export default function LogviewPage() {
  return (
    <ManagementShell page="logview">
      <LogSearchView />
    </ManagementShell>
  );
}

export const features: readonly FeatureDef[] = [managementFeature];
