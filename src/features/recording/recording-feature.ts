import type { FeatureDef } from '../../app/features';
import recording from './recording-slice';
import { addRecordingListeners } from './recording-listeners';

/** The `recording` feature: registered when a route that uses it loads (app/features.ts). */
export const recordingFeature: FeatureDef = {
  name: 'recording',
  reducers: { recording },
  addListeners: addRecordingListeners,
};
