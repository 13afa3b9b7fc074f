import type { FeatureDef, JapaneseTexts } from '../../app/features';
import identificationJa from '../../i18n/locales/ja/identification.json';
import aiJa from '../../i18n/locales/ja/identification/ai.json';
import { testerFeature } from '../../features/tester/tester-feature';
import { identificationFeature } from '../../features/identification/identification-feature';
import { liveFeature } from '../../features/live/live-feature';
import { phonePairingFeature } from '../../features/phone-pairing/phone-pairing-feature';
import { AiIdentificationView } from '../../features/identification/components/ai-identification-view';
import { CameraPreview } from '../../features/tester/components/camera-preview';
import { TesterChrome } from './tester-chrome';

/** /identification-ai (spec §2): composes the feature's view; the page holds no logic. */
export default function IdentificationAiPage() {
  return <AiIdentificationView chrome={<TesterChrome />} Camera={CameraPreview} />;
}

/**
 * Registered here: the examinee's state (tester), the matching poll (live) and what it reports (phonePairing),
 * and the identity check. The wider view and the recording register with /examining, where they run (it reads
 * where the wider view stands, a room scan the checker asked for included, when it opens).
 */
export const features: readonly FeatureDef[] = [
  testerFeature,
  liveFeature,
  identificationFeature,
  phonePairingFeature,
];

export const texts: JapaneseTexts = { identification: identificationJa, 'identification/ai': aiJa };
