import type { FeatureDef, JapaneseTexts } from '../../app/features';
import identificationJa from '../../i18n/locales/ja/identification.json';
import aiJa from '../../i18n/locales/ja/identification/ai.json';
import { testerFeature } from '../../features/tester/tester-feature';
import { identificationFeature } from '../../features/identification/identification-feature';
import { liveFeature } from '../../features/live/live-feature';
import { recordingFeature } from '../../features/recording/recording-feature';
import { widerViewFeature } from '../../features/wider-view/wider-view-feature';
import { phonePairingFeature } from '../../features/phone-pairing/phone-pairing-feature';
import { AiIdentificationView } from '../../features/identification/components/ai-identification-view';
import { CameraPreview } from '../../features/tester/components/camera-preview';
import { TesterChrome } from './tester-chrome';

/** /identification-ai (spec §2): composes the feature's view; the page holds no logic. */
export default function IdentificationAiPage() {
  return <AiIdentificationView chrome={<TesterChrome />} Camera={CameraPreview} />;
}

/** The examinee flow moves between pages, so every tester page registers all of its features. */
export const features: readonly FeatureDef[] = [
  testerFeature,
  identificationFeature,
  liveFeature,
  recordingFeature,
  widerViewFeature,
  phonePairingFeature,
];

export const texts: JapaneseTexts = { identification: identificationJa, 'identification/ai': aiJa };
