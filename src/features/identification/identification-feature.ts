import type { FeatureDef } from '../../app/features';
import identification from './identification-slice';
import { addIdentificationListeners } from './identification-listeners';

/** The `identification` feature: registered when a route that uses it loads (app/features.ts). */
export const identificationFeature: FeatureDef = {
  name: 'identification',
  reducers: { identification },
  addListeners: addIdentificationListeners,
};
