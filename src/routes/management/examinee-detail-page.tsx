import type { FeatureDef, JapaneseTexts } from '../../app/features';
import examineesJa from '../../i18n/locales/ja/examinees.json';
import examineesDetailJa from '../../i18n/locales/ja/examinees/detail.json';
import managementJa from '../../i18n/locales/ja/management.json';
import managementShortUrlJa from '../../i18n/locales/ja/management/shortUrl.json';
import { examineesFeature } from '../../features/examinees/examinees-feature';
import { useParams } from 'react-router-dom';
import { useAppSelector } from '../../app/hooks';
import { canAccess } from '../../app/permissions';
import { ExamineeDetailView } from '../../features/examinees/components/examinee-detail-view';
import { selectActor } from '../../features/session/session-slice';
import { href } from '@/config/paths';
import { ManagementShell } from './management-shell';

/** /examinees/{id} (id = test id; checked numeric by the router). */
export default function ExamineeDetailPage() {
  const { id } = useParams();
  const actor = useAppSelector(selectActor);
  // A checker has no search page: "back" leads to their first page.
  const back = canAccess('examinees', actor) ? href('examinees') : href('monitoring');
  return (
    <ManagementShell page="examineeDetail">
      <ExamineeDetailView
        testId={Number(id)}
        searchHref={back}
        reportHref={href('examineeReport', { id: Number(id) })}
      />
    </ManagementShell>
  );
}

export const features: readonly FeatureDef[] = [examineesFeature];

/** The sitting's start-up parameters are shown with the short-URL form's labels (management). */
export const texts: JapaneseTexts = {
  examinees: examineesJa,
  'examinees/detail': examineesDetailJa,
  management: managementJa,
  'management/shortUrl': managementShortUrlJa,
};
