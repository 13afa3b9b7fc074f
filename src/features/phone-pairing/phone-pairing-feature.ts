import type { FeatureDef } from '../../app/features';
import phonePairing from './phone-pairing-slice';
import { addPhonePairingListeners } from './phone-pairing-listeners';

/** The `phonePairing` feature (the examinee's side of the phone camera): registered with the tester pages. */
export const phonePairingFeature: FeatureDef = {
  name: 'phonePairing',
  reducers: { phonePairing },
  addListeners: addPhonePairingListeners,
};
