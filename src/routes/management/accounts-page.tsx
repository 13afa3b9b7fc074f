import type { FeatureDef } from '../../app/features';
import { accountsFeature } from '../../features/accounts/accounts-feature';
import { AccountsView } from '../../features/accounts/components/accounts-view';
import { ManagementShell } from './management-shell';

/** /accounts: accounts and exam groups (system managers). */
export default function AccountsPage() {
  return (
    <ManagementShell page="accounts">
      <AccountsView />
    </ManagementShell>
  );
}

export const features: readonly FeatureDef[] = [accountsFeature];
