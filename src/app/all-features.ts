import type { FeatureDef } from './features';
import { testerFeature } from '../features/tester/tester-feature';
import { examFeature } from '../features/tester/exam-feature';
import { identificationFeature } from '../features/identification/identification-feature';
import { liveFeature } from '../features/live/live-feature';
import { recordingFeature } from '../features/recording/recording-feature';
import { monitoringFeature } from '../features/monitoring/monitoring-feature';
import { examineesFeature } from '../features/examinees/examinees-feature';
import { managementFeature } from '../features/management/management-feature';
import { accountsFeature } from '../features/accounts/accounts-feature';
import { widerViewFeature } from '../features/wider-view/wider-view-feature';
import { phoneCameraFeature } from '../features/phone-camera/phone-camera-feature';
import { phonePairingFeature } from '../features/phone-pairing/phone-pairing-feature';

/**
 * Every feature. Only the test setup imports this (stores in tests start with all features); the app
 * registers features per route, from the page modules' `features` exports.
 */
export const ALL_FEATURES: readonly FeatureDef[] = [
  testerFeature,
  examFeature,
  identificationFeature,
  liveFeature,
  recordingFeature,
  monitoringFeature,
  examineesFeature,
  managementFeature,
  accountsFeature,
  widerViewFeature,
  phoneCameraFeature,
  phonePairingFeature,
];
