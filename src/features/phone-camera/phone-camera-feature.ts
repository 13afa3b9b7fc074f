import type { FeatureDef } from '../../app/features';
import phoneCamera from './phone-camera-slice';
import { addPhoneCameraListeners } from './phone-camera-listeners';
import phonePageJa from '../../i18n/locales/ja/phone/page.json';

/** The `phoneCamera` feature (the phone's own page): registered when /phone loads (app/features.ts). */
export const phoneCameraFeature: FeatureDef = {
  name: 'phoneCamera',
  reducers: { phoneCamera },
  addListeners: addPhoneCameraListeners,
  texts: { 'phone/page': phonePageJa },
};
