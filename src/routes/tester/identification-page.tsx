import { MonitorIdentificationView } from '../../features/identification/components/monitor-identification-view';

/** /identification (spec §2): composes the feature's view; the page holds no logic. */
export default function IdentificationPage() {
  return <MonitorIdentificationView />;
}
