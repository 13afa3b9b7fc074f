import type { FeatureDef } from '../../app/features';
import tester from './tester-slice';
import { addTesterListeners } from './tester-listeners';

/** The `tester` feature: registered when a route that uses it loads (app/features.ts). */
export const testerFeature: FeatureDef = {
  name: 'tester',
  reducers: { tester },
  addListeners: addTesterListeners,
  namespaces: ['tester', 'examining'],
};
