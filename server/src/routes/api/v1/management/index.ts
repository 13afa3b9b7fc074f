import { ADMIN_ACTORS, Envelope } from '../../../../../../contract/common';
import {
  AnalysisInitialParamResult,
  ManagementInitialParamResult,
  ManagementSummaryResult,
} from '../../../../../../contract/management';
import type { App } from '../../../../lib/app-types';
import { countLoggedIn } from '../../../../lib/management/sessions';
import { dateInZone } from '../../../../lib/management-time';
import { countPlannedDeletions } from '../../../../lib/retention-job';

/** management_initial_param.php, management_summary.php and analysis_request/initial_param.php (spec §7). */
export default async function managementRoutes(app: App): Promise<void> {
  const origin = new URL(app.config.publicOrigin);

  app.get(
    '/management_initial_param.php',
    {
      config: { access: ADMIN_ACTORS },
      schema: { response: { 200: Envelope(ManagementInitialParamResult) } },
    },
    async (_request, reply) =>
      reply.ok({ origin: origin.origin, domain: origin.hostname } satisfies ManagementInitialParamResult),
  );

  app.get(
    '/management_summary.php',
    {
      config: { access: ADMIN_ACTORS },
      schema: { response: { 200: Envelope(ManagementSummaryResult) } },
    },
    async (_request, reply) => {
      const logins = await countLoggedIn(app.db, app.config.managerIdleSeconds);
      const plan = await countPlannedDeletions(app.db, dateInZone(new Date()));
      const result: ManagementSummaryResult = {
        logins: { tester_count: logins.testers, other_count: logins.others },
        delete_plan: { tester_count: plan.tests, record_count: plan.records },
      };
      return reply.ok(result);
    },
  );

  // Only the initial parameters of the data-extraction page belong here (the origin this group already
  // knows); the rest of analysis_request is in routes/api/v1/analysis/.
  app.get(
    '/analysis_request/initial_param.php',
    {
      config: { access: ADMIN_ACTORS },
      schema: { response: { 200: Envelope(AnalysisInitialParamResult) } },
    },
    async (_request, reply) =>
      reply.ok({
        domain: origin.hostname,
        env: app.config.demo ? 'demo' : 'production',
      } satisfies AnalysisInitialParamResult),
  );
}
