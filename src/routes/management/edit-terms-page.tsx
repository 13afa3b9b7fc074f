import type { FeatureDef, JapaneseTexts } from '../../app/features';
import managementTermsJa from '../../i18n/locales/ja/management/terms.json';
import managementShortUrlJa from '../../i18n/locales/ja/management/shortUrl.json';
import managementLogviewJa from '../../i18n/locales/ja/management/logview.json';
import { managementFeature } from '../../features/management/management-feature';
import { EditTermsView } from '../../features/management/components/edit-terms-view';
import { ManagementShell } from './management-shell';

/** /edit-terms: the terms of use, privacy policy, inquiry and examining-notes templates. */
export default function EditTermsPage() {
  return (
    <ManagementShell page="editTerms">
      <EditTermsView />
    </ManagementShell>
  );
}

export const features: readonly FeatureDef[] = [managementFeature];

export const texts: JapaneseTexts = {
  'management/terms': managementTermsJa,
  'management/shortUrl': managementShortUrlJa,
  // The template form's length message is the log search's (management:logview.tooLong).
  'management/logview': managementLogviewJa,
};
