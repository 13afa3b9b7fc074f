import { EnvSettingView } from '../../features/tester/components/env-setting-view';

/** /env-setting (spec §2): composes the feature's view; the page holds no logic. */
export default function EnvSettingPage() {
  return <EnvSettingView />;
}
