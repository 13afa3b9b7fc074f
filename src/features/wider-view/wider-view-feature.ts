import type { FeatureDef } from '../../app/features';
import widerView from './wider-view-slice';
import { addWiderViewListeners } from './wider-view-listeners';

/** The `widerView` feature (the examinee's screen share and room scans): registered with the tester routes. */
export const widerViewFeature: FeatureDef = {
  name: 'widerView',
  reducers: { widerView },
  addListeners: addWiderViewListeners,
};
