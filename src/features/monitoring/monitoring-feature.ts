import type { FeatureDef } from '../../app/features';
import monitoring from './monitoring-slice';
import { addMonitoringListeners } from './monitoring-listeners';
import monitoringJa from '../../i18n/locales/ja/monitoring.json';

/** The `monitoring` feature: registered when a route that uses it loads (app/features.ts). */
export const monitoringFeature: FeatureDef = {
  name: 'monitoring',
  reducers: { monitoring },
  addListeners: addMonitoringListeners,
  texts: { monitoring: monitoringJa },
};
