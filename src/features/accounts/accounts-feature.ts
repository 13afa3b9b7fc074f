import type { FeatureDef } from '../../app/features';
import accounts from './accounts-slice';

/** The `accounts` feature (the system manager's Accounts page): registered when its route loads. */
export const accountsFeature: FeatureDef = {
  name: 'accounts',
  reducers: { accounts },
  namespaces: ['accounts', 'management'],
};
