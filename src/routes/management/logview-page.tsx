import type { FeatureDef, JapaneseTexts } from '../../app/features';
import managementLogviewJa from '../../i18n/locales/ja/management/logview.json';
import { managementFeature } from '../../features/management/management-feature';
import { LogSearchView } from '../../features/management/components/log-search-view';
import { ManagementShell } from './management-shell';

/** /logview: the log search over client, device, audit and server logs. */
export default function LogviewPage() {
  return (
    <ManagementShell page="logview">
      <LogSearchView />
    </ManagementShell>
  );
}

export const features: readonly FeatureDef[] = [managementFeature];

export const texts: JapaneseTexts = { 'management/logview': managementLogviewJa };
