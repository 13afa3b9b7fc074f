import type { FeatureDef } from '../../app/features';
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
