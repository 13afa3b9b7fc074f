import type { FeatureDef, JapaneseTexts } from '../../app/features';
import examineesJa from '../../i18n/locales/ja/examinees.json';
import examineesDetailJa from '../../i18n/locales/ja/examinees/detail.json';
import { useParams } from 'react-router-dom';
import { examineesFeature } from '../../features/examinees/examinees-feature';
import { ExamineeReportView } from '../../features/examinees/components/examinee-report-view';
import { href } from '@/config/paths';

/** /examinees/{id}/report: the print-ready report of one sitting (id = test id, checked by the router). */
export default function ExamineeReportPage() {
  const { id } = useParams();
  return <ExamineeReportView testId={Number(id)} detailHref={href('examineeDetail', { id: Number(id) })} />;
}

export const features: readonly FeatureDef[] = [examineesFeature];

export const texts: JapaneseTexts = { examinees: examineesJa, 'examinees/detail': examineesDetailJa };
