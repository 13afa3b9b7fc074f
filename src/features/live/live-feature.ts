import type { FeatureDef } from '../../app/features';
import live from './live-slice';
import { addLiveListeners } from './live-listeners';
import liveJa from '../../i18n/locales/ja/live.json';

/** The `live` feature: registered when a route that uses it loads (app/features.ts). */
export const liveFeature: FeatureDef = {
  name: 'live',
  reducers: { live },
  addListeners: addLiveListeners,
  texts: { live: liveJa },
};
