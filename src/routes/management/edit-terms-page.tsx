import type { FeatureDef } from '../../app/features';
import { managementFeature } from '../../features/management/management-feature';
import { EditTermsView } from '../../features/management/components/edit-terms-view';
import { ManagementShell } from './management-shell';

/** /edit-terms: the terms of use, privacy policy, inquiry and examining-notes templates. */
export default function EditTermsPage() {
  return (
    <ManagementShell page="editTerms">
      <EditTermsView />
    </ManagementShell>
  );
}

export const features: readonly FeatureDef[] = [managementFeature];
