import { ExaminingView } from '../../features/tester/components/examining-view';

/** /examining (spec §2): composes the feature's view; the page holds no logic. */
export default function ExaminingPage() {
  return <ExaminingView />;
}
