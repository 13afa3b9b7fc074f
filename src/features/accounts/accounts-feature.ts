import type { FeatureDef } from '../../app/features';
import accounts from './accounts-slice';
import accountsJa from '../../i18n/locales/ja/accounts.json';
import managementJa from '../../i18n/locales/ja/management.json';

/** The `accounts` feature (the system manager's Accounts page): registered when its route loads. */
export const accountsFeature: FeatureDef = {
  name: 'accounts',
  reducers: { accounts },
  texts: { accounts: accountsJa, management: managementJa },
};
