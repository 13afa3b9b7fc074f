import type { FeatureDef, JapaneseTexts } from '../../app/features';
import examineesJa from '../../i18n/locales/ja/examinees.json';
import examineesCsvJa from '../../i18n/locales/ja/examinees/csv.json';
import { examineesFeature } from '../../features/examinees/examinees-feature';
import { ExamineeResultTable } from '../../features/examinees/components/examinee-result-table';
import { ExamineeSearchForm } from '../../features/examinees/components/examinee-search-form';
import { href } from '@/config/paths';
import { ManagementShell } from './management-shell';

/** /examinees: search conditions and result table. */
export default function ExamineesPage() {
  return (
    <ManagementShell page="examinees">
      <ExamineeSearchForm />
      <ExamineeResultTable
        detailHref={(id) => href('examineeDetail', { id })}
        analysisHref={href('analysisRequest')}
      />
    </ManagementShell>
  );
}

export const features: readonly FeatureDef[] = [examineesFeature];

export const texts: JapaneseTexts = { examinees: examineesJa, 'examinees/csv': examineesCsvJa };
