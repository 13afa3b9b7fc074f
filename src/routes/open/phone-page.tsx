import type { FeatureDef } from '../../app/features';
import { phoneCameraFeature } from '../../features/phone-camera/phone-camera-feature';
import { PhoneCameraView } from '../../features/phone-camera/components/phone-camera-view';

/** /phone: the examinee's phone as a second camera (opened from the QR code on the examinee's page). */
export default function PhonePage() {
  return <PhoneCameraView />;
}

export const features: readonly FeatureDef[] = [phoneCameraFeature];
