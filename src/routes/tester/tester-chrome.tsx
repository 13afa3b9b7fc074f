import { LiveStatus } from '../../features/live/components/live-status';
import { DisconnectBanner } from '../../features/tester/components/disconnect-banner';
import { ExitNotice } from '../../features/tester/components/exit-notice';
import { StepBar } from '../../features/tester/components/step-bar';

/**
 * The examinee pages' chrome under the title: the step bar, the exit notice, the connection banner and the
 * live channel's status. Composed here, at route level, around views of other features (identification).
 */
export function TesterChrome() {
  return (
    <>
      <StepBar />
      <ExitNotice />
      <DisconnectBanner />
      <LiveStatus />
    </>
  );
}
