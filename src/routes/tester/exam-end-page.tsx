import type { FeatureDef, JapaneseTexts } from '../../app/features';
import examEndJa from '../../i18n/locales/ja/tester/examEnd.json';
import { testerFeature } from '../../features/tester/tester-feature';
import { identificationFeature } from '../../features/identification/identification-feature';
import { liveFeature } from '../../features/live/live-feature';
import { recordingFeature } from '../../features/recording/recording-feature';
import { widerViewFeature } from '../../features/wider-view/wider-view-feature';
import { phonePairingFeature } from '../../features/phone-pairing/phone-pairing-feature';
import { ExamEndView } from '../../features/tester/components/exam-end-view';

/** /exam-end (spec §2): composes the feature's view; the page holds no logic. */
export default function ExamEndPage() {
  return <ExamEndView />;
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

export const texts: JapaneseTexts = { 'tester/examEnd': examEndJa };
