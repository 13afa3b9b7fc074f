import type { FeatureDef, JapaneseTexts } from '../../app/features';
import managementAccessLimitJa from '../../i18n/locales/ja/management/accessLimit.json';
import { managementFeature } from '../../features/management/management-feature';
import { AccessLimitView } from '../../features/management/components/access-limit-view';
import { ManagementShell } from './management-shell';

/** /access-limit. */
export default function AccessLimitPage() {
  return (
    <ManagementShell page="accessLimit">
      <AccessLimitView />
    </ManagementShell>
  );
}

export const features: readonly FeatureDef[] = [managementFeature];

export const texts: JapaneseTexts = { 'management/accessLimit': managementAccessLimitJa };
