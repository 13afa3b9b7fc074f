import type { FeatureDef, JapaneseTexts } from '../../app/features';
import identificationJa from '../../i18n/locales/ja/identification.json';
import monitorJa from '../../i18n/locales/ja/identification/monitor.json';
import { testerFeature } from '../../features/tester/tester-feature';
import { identificationFeature } from '../../features/identification/identification-feature';
import { liveFeature } from '../../features/live/live-feature';
import { phonePairingFeature } from '../../features/phone-pairing/phone-pairing-feature';
import { MonitorIdentificationView } from '../../features/identification/components/monitor-identification-view';
import { CameraPreview } from '../../features/tester/components/camera-preview';
import { ChatPanel } from '../../features/tester/components/chat-panel';
import { TesterChrome } from './tester-chrome';

/** /identification (spec §2): the identification view with the tester pages' chrome, camera and chat. */
export default function IdentificationPage() {
  return <MonitorIdentificationView chrome={<TesterChrome />} Camera={CameraPreview} Chat={ChatPanel} />;
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

export const texts: JapaneseTexts = { identification: identificationJa, 'identification/monitor': monitorJa };
