import type { FeatureDef } from '../../app/features';
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
