import {
  AnalysisIndexQuery,
  AnalysisIndexResult,
  AnalysisRequestBody,
  AnalysisRequestResult,
  type AnalysisRequestRow,
} from '../../../../../../contract/analysis';
import { ADMIN_ACTORS, Envelope } from '../../../../../../contract/common';
import { createAnalysisRequest, getAnalysisQueue } from '../../../../lib/ai/analysis-queue';
import { ApiError } from '../../../../lib/api-error';
import type { App } from '../../../../lib/app-types';
import { audit } from '../../../../lib/audit';
import { iso } from '../../../../lib/sittings/sittings';

const validation = (message: string) => new ApiError(400, 'validation', message);

/**
 * analysis_request/request.php and analysis_request/index.php (spec §3 "Analysis request", §7, §9; issue #6).
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
      const found = await app.db.query<{ id: number }>(`SELECT id FROM tests WHERE id = ANY($1::bigint[])`, [
        ids,
      ]);
      if (found.rows.length !== ids.length) {
        const known = new Set(found.rows.map((r) => Number(r.id)));
        throw new ApiError(
          404,
          'not_found',
          `Unknown test id(s): ${ids.filter((i) => !known.has(i)).join(', ')}.`,
        );
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
    async (request, reply) => {
      const key = request.query.sort_key ?? 'created_at';
      const dir = request.query.sort_order === 1 ? 'ASC' : 'DESC';
      // key comes from a closed list (schema), so it can be interpolated.
      const { rows } = await app.db.query<{
        id: number;
        inseq: string;
        status: string;
        env: string;
        result: string;
        method: number;
        created_at: Date | string;
        updated_at: Date | string;
        total: number;
        done: number;
        failed: number;
        progress_sum: number;
      }>(
        `SELECT a.id, a.inseq, a.status, a.env, a.result, a.method, a.created_at, a.updated_at,
                count(j.id)::int AS total,
                count(j.id) FILTER (WHERE j.status = 'done')::int AS done,
                count(j.id) FILTER (WHERE j.status = 'error')::int AS failed,
                coalesce(sum(CASE WHEN j.status IN ('done', 'error') THEN 100 ELSE j.progress END), 0)::int AS progress_sum
           FROM analysis_requests a LEFT JOIN analysis_jobs j ON j.request_id = a.id
          GROUP BY a.id ORDER BY a.${key} ${dir}, a.id ${dir} LIMIT 1000`,
      );
      const list: AnalysisRequestRow[] = rows.map((r) => ({
        id: Number(r.id),
        inseq: r.inseq,
        status: r.status,
        env: r.env,
        result: r.result,
        method: r.method,
        created_at: iso(r.created_at)!,
        updated_at: iso(r.updated_at)!,
        progress: {
          total: r.total,
          done: r.done,
          failed: r.failed,
          percent: r.total ? Math.floor(r.progress_sum / r.total) : 100,
        },
      }));
      return reply.ok({ analysis_requests: list } satisfies AnalysisIndexResult);
    },
  );
}
