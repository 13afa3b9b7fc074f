import type { FeatureDef, JapaneseTexts } from '../../app/features';
import envSettingJa from '../../i18n/locales/ja/tester/envSetting.json';
import { testerFeature } from '../../features/tester/tester-feature';
import { liveFeature } from '../../features/live/live-feature';
import { phonePairingFeature } from '../../features/phone-pairing/phone-pairing-feature';
import { EnvSettingView } from '../../features/tester/components/env-setting-view';

/** /env-setting (spec §2): composes the feature's view; the page holds no logic. */
export default function EnvSettingPage() {
  return <EnvSettingView />;
}

/**
 * Registered here: the examinee's state and exit (tester), and what Next starts, the matching poll (live) and
 * the phone camera's state it reports (phonePairing). The identity check, the wider view and the recording
 * register with the pages that run them (the flow only moves on from here).
 */
export const features: readonly FeatureDef[] = [testerFeature, liveFeature, phonePairingFeature];

export const texts: JapaneseTexts = { 'tester/envSetting': envSettingJa };
