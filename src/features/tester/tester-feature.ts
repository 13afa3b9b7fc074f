import type { FeatureDef } from '../../app/features';
import tester from './tester-slice';
import { addTesterListeners } from './tester-listeners';
import testerJa from '../../i18n/locales/ja/tester.json';

/** The `tester` feature: registered when a route that uses it loads (app/features.ts). */
export const testerFeature: FeatureDef = {
  name: 'tester',
  reducers: { tester },
  addListeners: addTesterListeners,
  texts: { tester: testerJa },
};
