import type { FeatureDef } from '../../app/features';
import examinees from './examinees-slice';

/** The `examinees` feature: registered when a route that uses it loads (app/features.ts). */
export const examineesFeature: FeatureDef = {
  name: 'examinees',
  reducers: { examinees },
  namespaces: ['examinees', 'validation'],
};
