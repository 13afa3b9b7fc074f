import {
  AnalysisIndexQuery,
  AnalysisIndexResult,
  AnalysisRequestBody,
  AnalysisRequestResult,
} from '../../../../../../contract/analysis';
import { ADMIN_ACTORS, Envelope } from '../../../../../../contract/common';
import { createAnalysisRequest, getAnalysisQueue } from '../../../../lib/ai/analysis-queue';
import { listAnalysisRequests, unknownTestIds } from '../../../../lib/ai/analysis-requests';
import { ApiError } from '../../../../lib/api-error';
import type { App } from '../../../../lib/app-types';
import { audit } from '../../../../lib/audit';

const validation = (message: string) => new ApiError(400, 'validation', message);

/**
 * analysis_request/request.php and analysis_request/index.php (spec §3 "Analysis request", §7, §9).
 * analysis_request/initial_param.php lives in the management routes.
 */
export default async function analysisRoutes(app: App): Promise<void> {
  app.post(
    '/analysis_request/request.php',
    {
      config: { access: ADMIN_ACTORS },
      schema: { body: AnalysisRequestBody, response: { 200: Envelope(AnalysisRequestResult) } },
    },
    async (request, reply) => {
      const auth = request.auth!;
      const b = request.body;
      const method = Number(b.analysis_status);
      if (!Number.isInteger(method) || method < 1 || method > 5) {
        throw validation('analysis_status must be an analysis method 1–5 (spec §9).');
      }
      const inseq = String(b.analysis_inseq).trim();
      if (!inseq) throw validation('analysis_inseq is required.');
      const ids = [...new Set((Array.isArray(b.testers) ? b.testers : b.testers.split(',')).map(Number))];
      if (!ids.length || ids.some((n) => !Number.isSafeInteger(n) || n < 1)) {
        throw validation('testers must list test ids.');
      }
      const unknown = await unknownTestIds(app.db, ids);
      if (unknown.length > 0) {
        throw new ApiError(404, 'not_found', `Unknown test id(s): ${unknown.join(', ')}.`);
      }
      const r = await createAnalysisRequest(app.db, {
        inseq,
        method,
        testIds: ids,
        userId: auth.userId,
        env: app.config.demo ? 'demo' : 'production',
      });
      await audit(app.db, {
        type: 'analysis.request',
        actor: auth.actor,
        userId: auth.userId,
        loginId: auth.loginId,
        ip: request.ip,
        target: `analysis_request:${r.requestId}`,
        details: `method=${method} tests=${ids.length} queued=${r.queued} skipped=${r.skipped}`,
      });
      getAnalysisQueue(app)?.kick();
      const message =
        r.queued > 0
          ? `${r.queued} recording(s) queued for analysis.`
          : 'No recording could be queued (none converted, or already queued).';
      return reply.ok({
        id: r.requestId,
        message,
        queued: r.queued,
        skipped: r.skipped,
      } satisfies AnalysisRequestResult);
    },
  );

  app.get(
    '/analysis_request/index.php',
    {
      config: { access: ADMIN_ACTORS },
      schema: { querystring: AnalysisIndexQuery, response: { 200: Envelope(AnalysisIndexResult) } },
    },
    async (request, reply) =>
      reply.ok({
        analysis_requests: await listAnalysisRequests(app.db, request.query),
      } satisfies AnalysisIndexResult),
  );
}
