import type { FeatureDef, JapaneseTexts } from '../../app/features';
import managementMenuJa from '../../i18n/locales/ja/management/menu.json';
import managementSummaryJa from '../../i18n/locales/ja/management/summary.json';
import { managementFeature } from '../../features/management/management-feature';
import { useAppSelector } from '../../app/hooks';
import { canAccess } from '../../app/permissions';
import { ManagementHome, type MenuEntry } from '../../features/management/components/management-home';
import { selectActor } from '../../features/session/session-slice';
import { href } from '@/config/paths';
import { ManagementShell } from './management-shell';

/** spec §2 menu entries in order (the terms-editing page last). */
const ENTRIES: MenuEntry['key'][] = [
  'examinees',
  'checkersMonitoring',
  'analysisRequest',
  'accessLimit',
  'logview',
  'createShorturlList',
  'deleteSetting',
  'deletePlan',
  'logins',
  'editTerms',
  'accounts',
];

/** /management: menu and summary. */
export default function ManagementPage() {
  const actor = useAppSelector(selectActor);
  const entries = ENTRIES.filter((k) => canAccess(k, actor)).map((key) => ({ key, href: href(key) }));
  return (
    <ManagementShell page="management">
      <ManagementHome entries={entries} />
    </ManagementShell>
  );
}

export const features: readonly FeatureDef[] = [managementFeature];

export const texts: JapaneseTexts = {
  'management/menu': managementMenuJa,
  'management/summary': managementSummaryJa,
};
