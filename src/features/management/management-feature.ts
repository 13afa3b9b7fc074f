import type { FeatureDef } from '../../app/features';
import management from './management-slice';
import managementJa from '../../i18n/locales/ja/management.json';
import validationJa from '../../i18n/locales/ja/validation.json';

/**
 * The `management` feature: registered when a route that uses it loads (app/features.ts). Its texts are what
 * every management page shares (management's own file: buttons, yes/no, failures; validation); each page
 * adds its own part (`management/deletePlan`, …).
 */
export const managementFeature: FeatureDef = {
  name: 'management',
  reducers: { management },
  texts: { management: managementJa, validation: validationJa },
};
