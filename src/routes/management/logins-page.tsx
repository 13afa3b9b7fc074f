import type { FeatureDef, JapaneseTexts } from '../../app/features';
import managementLoginsJa from '../../i18n/locales/ja/management/logins.json';
import { managementFeature } from '../../features/management/management-feature';
import { LoginsView } from '../../features/management/components/logins-view';
import { ManagementShell } from './management-shell';

/** /logins. */
export default function LoginsPage() {
  return (
    <ManagementShell page="logins">
      <LoginsView />
    </ManagementShell>
  );
}

export const features: readonly FeatureDef[] = [managementFeature];

export const texts: JapaneseTexts = { 'management/logins': managementLoginsJa };
