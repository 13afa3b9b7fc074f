import type { AnalysisIndexQuery, AnalysisRequestRow } from '../../../../contract/analysis';
import type { Db } from '../../db/db';
import { iso } from '../sittings/sittings';

/** The ids among `ids` that name no test (an analysis request must name existing ones only). */
export async function unknownTestIds(db: Db, ids: readonly number[]): Promise<number[]> {
  const found = await db.query<{ id: number }>(`SELECT id FROM tests WHERE id = ANY($1::bigint[])`, [ids]);
  if (found.rows.length === ids.length) return [];
  const known = new Set(found.rows.map((r) => Number(r.id)));
  return ids.filter((i) => !known.has(i));
}

/** The analysis-request history (newest first unless asked otherwise), each with its jobs' progress. */
export async function listAnalysisRequests(db: Db, q: AnalysisIndexQuery): Promise<AnalysisRequestRow[]> {
  const key = q.sort_key ?? 'created_at';
  const dir = q.sort_order === 1 ? 'ASC' : 'DESC';
  // key comes from a closed list (schema), so it can be interpolated.
  const { rows } = await db.query<{
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
  return rows.map((r) => ({
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
}
