import type { FeatureDef } from '../../app/features';
import live from './live-slice';
import { addLiveListeners } from './live-listeners';

/** The `live` feature: registered when a route that uses it loads (app/features.ts). */
export const liveFeature: FeatureDef = {
  name: 'live',
  reducers: { live },
  addListeners: addLiveListeners,
  namespaces: ['live'],
};
