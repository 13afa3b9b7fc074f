import { ExamEndView } from '../../features/tester/components/exam-end-view';

/** /exam-end (spec §2): composes the feature's view; the page holds no logic. */
export default function ExamEndPage() {
  return <ExamEndView />;
}
