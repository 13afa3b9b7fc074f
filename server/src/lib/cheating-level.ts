import type { Db } from '../db/db';

/**
 * The organisation's cheating-level thresholds (README "Cheating level"): three ascending scores each, for
 * the checkers' marking score and for the AI analysis score. A sitting's level (0 none … 3 high) is the
 * higher of the numbers of thresholds its two scores reach. The database computes it (migration 0040:
 * cheating_level_of and the triggers that follow every marking), so search, filter, sort, CSV and detail
 * all read the same stored value.
 */
export interface CheatingLevelThresholds {
  score: readonly [number, number, number];
  ai: readonly [number, number, number];
}

export const DEFAULT_CHEATING_LEVEL_THRESHOLDS: CheatingLevelThresholds = {
  score: [1, 5, 10],
  ai: [50, 150, 300],
};

/** The levels a sitting can have, lowest first (the filter options of testers/conditions). */
export const CHEATING_LEVELS = [0, 1, 2, 3] as const;

/** Parses `a,b,c` (three strictly ascending positive integers); throws naming the variable otherwise. */
export function parseThresholds(
  text: string | undefined,
  name: string,
  dflt: readonly [number, number, number],
): readonly [number, number, number] {
  if (text === undefined || text.trim() === '') return dflt;
  const parts = text.split(',').map((p) => Number(p.trim()));
  if (
    parts.length !== 3 ||
    !parts.every((n) => Number.isSafeInteger(n) && n > 0) ||
    !(parts[0]! < parts[1]! && parts[1]! < parts[2]!)
  ) {
    throw new Error(`${name} must be three ascending positive integers, e.g. 1,5,10 (got "${text}").`);
  }
  return [parts[0]!, parts[1]!, parts[2]!];
}

/** The level of a pair of scores under `t` (the same rule as the database's cheating_level_of). */
export function cheatingLevelOf(score: number, aiScore: number, t: CheatingLevelThresholds): number {
  const reached = (v: number, th: readonly number[]) => th.filter((x) => v >= x).length;
  return Math.max(reached(score, t.score), reached(aiScore, t.ai));
}

/**
 * Writes the configured thresholds to the database and, when they differ from the stored ones, recomputes
 * every sitting's level (one UPDATE of the rows whose level changes).
 */
export async function applyCheatingLevelThresholds(db: Db, t: CheatingLevelThresholds): Promise<boolean> {
  return db.transaction(async (tx) => {
    const { rows } = await tx.query<{ score_thresholds: number[]; ai_thresholds: number[] }>(
      `SELECT score_thresholds, ai_thresholds FROM cheating_level_settings WHERE id = 1 FOR UPDATE`,
    );
    const cur = rows[0];
    const same =
      cur &&
      cur.score_thresholds.join(',') === t.score.join(',') &&
      cur.ai_thresholds.join(',') === t.ai.join(',');
    if (same) return false;
    await tx.query(
      `INSERT INTO cheating_level_settings (id, score_thresholds, ai_thresholds, updated_at)
       VALUES (1, $1::int[], $2::int[], now())
       ON CONFLICT (id) DO UPDATE SET score_thresholds = EXCLUDED.score_thresholds,
         ai_thresholds = EXCLUDED.ai_thresholds, updated_at = now()`,
      [[...t.score], [...t.ai]],
    );
    await tx.query(
      `UPDATE tests SET cheating_level = cheating_level_of(total_score, ai_total_score)
        WHERE cheating_level IS DISTINCT FROM cheating_level_of(total_score, ai_total_score)`,
    );
    return true;
  });
}
