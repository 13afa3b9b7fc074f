import type { FeatureDef } from '../../app/features';
import management from './management-slice';

/** The `management` feature: registered when a route that uses it loads (app/features.ts). */
export const managementFeature: FeatureDef = {
  name: 'management',
  reducers: { management },
  namespaces: ['management', 'validation'],
};
