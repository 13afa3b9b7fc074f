import type { FeatureDef } from '../../app/features';
import { ForbiddenContent } from '../errors/forbidden-content';

/**
 * /examinees/{id}/login. The spec lists the route but shows no content for it and its permission table (§6)
 * lets no actor open it, so the guard answers 403 before this module loads; should a deployment's permission
 * data ever open it, it still shows the 403 content rather than an empty or invented page.
 */
export default function ExamineeLoginPage() {
  return <ForbiddenContent />;
}

export const features: readonly FeatureDef[] = [];
