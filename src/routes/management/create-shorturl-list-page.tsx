import type { FeatureDef, JapaneseTexts } from '../../app/features';
import managementShortUrlJa from '../../i18n/locales/ja/management/shortUrl.json';
import managementRetentionJa from '../../i18n/locales/ja/management/retention.json';
import { managementFeature } from '../../features/management/management-feature';
import { ShortUrlList } from '../../features/management/components/short-url-views';
import { href } from '@/config/paths';
import { ManagementShell } from './management-shell';

/** /create-shorturl-List. */
export default function CreateShorturlListPage() {
  return (
    <ManagementShell page="createShorturlList">
      <ShortUrlList editHref={(id) => href('createShorturl', { id })} newHref={href('createShorturl')} />
    </ManagementShell>
  );
}

export const features: readonly FeatureDef[] = [managementFeature];

export const texts: JapaneseTexts = {
  'management/shortUrl': managementShortUrlJa,
  'management/retention': managementRetentionJa,
};
