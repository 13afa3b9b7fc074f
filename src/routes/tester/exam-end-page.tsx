import type { FeatureDef, JapaneseTexts } from '../../app/features';
import examEndJa from '../../i18n/locales/ja/tester/examEnd.json';
import { testerFeature } from '../../features/tester/tester-feature';
import { ExamEndView } from '../../features/tester/components/exam-end-view';

/** /exam-end (spec §2): composes the feature's view; the page holds no logic. */
export default function ExamEndPage() {
  return <ExamEndView />;
}

/**
 * Registered here: the examinee's state and exit (tester). A sitting still under way goes back to its page,
 * which registers what runs there; one that came from /examining keeps what that page registered.
 */
export const features: readonly FeatureDef[] = [testerFeature];

export const texts: JapaneseTexts = { 'tester/examEnd': examEndJa };
