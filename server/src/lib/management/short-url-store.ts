import type { ShortUrlRow } from '../../../../contract/management';
import type { Db } from '../../db/db';
import { ApiError } from '../api-error';
import { sqlWireTime } from '../management-time';
import type { ValidShortUrl } from './short-urls';

/** A short_urls row as the settings page lists it (the page's `url` is added by the route). */
export type StoredShortUrl = Omit<ShortUrlRow, 'url'>;

/** The fields /s/{key} turns into a start-up query. */
export interface ShortUrlTarget {
  actor: number;
  target: string;
  url_key: string;
  param: Record<string, unknown> | string | null;
}

const DUPLICATE_KEY = 'このURLキーは既に使用されています。';
const keyTaken = () => new ApiError(409, 'short_url_key_taken', DUPLICATE_KEY);

const COLUMNS = `id, actor::int AS actor, target, url_key, param,
  ${sqlWireTime('created_at')} AS created_at, ${sqlWireTime('updated_at')} AS updated_at`;

function isUniqueViolation(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === '23505';
}

/** Whether an exam group with this code exists (a URL bound to a group must name one). */
export async function groupCodeExists(db: Db, code: string): Promise<boolean> {
  const { rows } = await db.query(`SELECT 1 FROM exam_groups WHERE code = $1`, [code]);
  return rows[0] !== undefined;
}

/** Every short URL, oldest first. */
export async function listShortUrls(db: Db): Promise<StoredShortUrl[]> {
  const { rows } = await db.query<StoredShortUrl>(`SELECT ${COLUMNS} FROM short_urls ORDER BY id`);
  return rows;
}

/** Stores a new short URL; 409 `short_url_key_taken` when its key is in use. */
export async function insertShortUrl(db: Db, v: ValidShortUrl): Promise<StoredShortUrl> {
  const { rows } = await db.query<StoredShortUrl>(
    `INSERT INTO short_urls (actor, target, url_key, param) VALUES ($1, $2, $3, $4::jsonb)
     ON CONFLICT (url_key) DO NOTHING RETURNING ${COLUMNS}`,
    [v.actor, v.target, v.urlKey, JSON.stringify(v.param)],
  );
  const row = rows[0];
  if (!row) throw keyTaken();
  return row;
}

/** Replaces a short URL; null when there is no such id, 409 `short_url_key_taken` when its new key is in use. */
export async function updateShortUrl(db: Db, id: number, v: ValidShortUrl): Promise<StoredShortUrl | null> {
  try {
    const { rows } = await db.query<StoredShortUrl>(
      `UPDATE short_urls SET actor = $2, target = $3, url_key = $4, param = $5::jsonb, updated_at = now()
        WHERE id = $1 RETURNING ${COLUMNS}`,
      [id, v.actor, v.target, v.urlKey, JSON.stringify(v.param)],
    );
    return rows[0] ?? null;
  } catch (err) {
    if (isUniqueViolation(err)) throw keyTaken();
    throw err;
  }
}

/** Deletes a short URL; its key, or null when there was no such id. */
export async function deleteShortUrl(db: Db, id: number): Promise<string | null> {
  const { rows } = await db.query<{ url_key: string }>(
    'DELETE FROM short_urls WHERE id = $1 RETURNING url_key',
    [id],
  );
  return rows[0]?.url_key ?? null;
}

/** The short URL /s/{key} names, or null. */
export async function findShortUrl(db: Db, key: string): Promise<ShortUrlTarget | null> {
  const { rows } = await db.query<ShortUrlTarget>(
    `SELECT actor, target, url_key, param FROM short_urls WHERE url_key = $1`,
    [key],
  );
  return rows[0] ?? null;
}

/** The stored start-up parameters of a tester (actor 1) short URL, or null when the key names none. */
export async function testerUrlParameters(db: Db, key: string): Promise<Record<string, unknown> | null> {
  const { rows } = await db.query<{ param: Record<string, unknown> | string }>(
    `SELECT param FROM short_urls WHERE url_key = $1 AND actor = 1`,
    [key],
  );
  const row = rows[0];
  if (!row) return null;
  return typeof row.param === 'string' ? (JSON.parse(row.param) as Record<string, unknown>) : row.param;
}
