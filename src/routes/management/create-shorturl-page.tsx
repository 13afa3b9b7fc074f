import type { FeatureDef, JapaneseTexts } from '../../app/features';
import managementShortUrlJa from '../../i18n/locales/ja/management/shortUrl.json';
import managementRetentionJa from '../../i18n/locales/ja/management/retention.json';
import { managementFeature } from '../../features/management/management-feature';
import { useParams } from 'react-router-dom';
import { ShortUrlFormView } from '../../features/management/components/short-url-views';
import { href } from '@/config/paths';
import { ManagementShell } from './management-shell';

/** /create-shorturl(/:id): registration, or editing when an id is given. */
export default function CreateShorturlPage() {
  const { id } = useParams();
  return (
    <ManagementShell page="createShorturl">
      <ShortUrlFormView
        key={id ?? 'new'}
        id={id === undefined ? undefined : Number(id)}
        listHref={href('createShorturlList')}
      />
    </ManagementShell>
  );
}

export const features: readonly FeatureDef[] = [managementFeature];

export const texts: JapaneseTexts = {
  'management/shortUrl': managementShortUrlJa,
  'management/retention': managementRetentionJa,
};
