import type { FeatureDef, JapaneseTexts } from '../../app/features';
import managementRetentionJa from '../../i18n/locales/ja/management/retention.json';
import { managementFeature } from '../../features/management/management-feature';
import { DeleteSettingView } from '../../features/management/components/delete-setting-view';
import { ManagementShell } from './management-shell';

/** /delete-setting. */
export default function DeleteSettingPage() {
  return (
    <ManagementShell page="deleteSetting">
      <DeleteSettingView />
    </ManagementShell>
  );
}

export const features: readonly FeatureDef[] = [managementFeature];

export const texts: JapaneseTexts = { 'management/retention': managementRetentionJa };
