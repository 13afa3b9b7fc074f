import { ADMIN_ACTORS, Envelope } from '../../../../../../contract/common';
import {
  DeletedResult,
  ShortUrlDeleteBody,
  ShortUrlInsertBody,
  ShortUrlListResult,
  ShortUrlRow,
  ShortUrlUpdateBody,
} from '../../../../../../contract/management';
import { ApiError } from '../../../../lib/api-error';
import type { App, AuthContext } from '../../../../lib/app-types';
import { audit } from '../../../../lib/audit';
import { FieldError, toId, installFieldErrorHandler } from '../../../../lib/management-errors';
import { validateShortUrl } from '../../../../lib/management/short-urls';
import { sqlWireTime } from '../../../../lib/management-time';

const DUPLICATE_KEY = 'このURLキーは既に使用されています。';

type StoredRow = Omit<ShortUrlRow, 'url'>;

const COLUMNS = `id, actor::int AS actor, target, url_key, param,
  ${sqlWireTime('created_at')} AS created_at, ${sqlWireTime('updated_at')} AS updated_at`;

function isUniqueViolation(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === '23505';
}

/** shorten_url/select, insert, update, delete (spec §3 "Short URL", §5, §7). */
export default async function shortenUrlRoutes(app: App): Promise<void> {
  installFieldErrorHandler(app);

  /** A URL bound to an exam group names one that exists (by its code). */
  async function assertGroupExists(code: string | number | undefined): Promise<void> {
    if (code === undefined) return;
    const { rows } = await app.db.query(`SELECT 1 FROM exam_groups WHERE code = $1`, [String(code)]);
    if (!rows[0]) throw new FieldError('group', 'この試験団体コードの試験団体はありません。');
  }
  const origin = app.config.publicOrigin.replace(/\/+$/, '');
  const withUrl = (r: StoredRow): ShortUrlRow => ({ ...r, url: `${origin}/s/${r.url_key}` });
  const auditRow = (auth: AuthContext, ip: string, type: string, id: number, urlKey: string) =>
    audit(app.db, {
      type,
      actor: auth.actor,
      userId: auth.userId,
      loginId: auth.loginId,
      ip,
      target: `short_url:${id}`,
      details: JSON.stringify({ url_key: urlKey }),
    });

  app.get(
    '/shorten_url/select.php',
    { config: { access: ADMIN_ACTORS }, schema: { response: { 200: Envelope(ShortUrlListResult) } } },
    async (_request, reply) => {
      const { rows } = await app.db.query<StoredRow>(`SELECT ${COLUMNS} FROM short_urls ORDER BY id`);
      return reply.ok({ list: rows.map(withUrl) } satisfies ShortUrlListResult);
    },
  );

  app.post(
    '/shorten_url/insert.php',
    {
      config: { access: ADMIN_ACTORS },
      schema: { body: ShortUrlInsertBody, response: { 200: Envelope(ShortUrlRow) } },
    },
    async (request, reply) => {
      const v = validateShortUrl(request.body);
      await assertGroupExists(v.param.group);
      const { rows } = await app.db.query<StoredRow>(
        `INSERT INTO short_urls (actor, target, url_key, param) VALUES ($1, $2, $3, $4::jsonb)
         ON CONFLICT (url_key) DO NOTHING RETURNING ${COLUMNS}`,
        [v.actor, v.target, v.urlKey, JSON.stringify(v.param)],
      );
      const row = rows[0];
      if (!row) throw new ApiError(409, 'short_url_key_taken', DUPLICATE_KEY);
      await auditRow(request.auth!, request.ip, 'settings.short_url.insert', row.id, row.url_key);
      return reply.ok(withUrl(row));
    },
  );

  app.post(
    '/shorten_url/update.php',
    {
      config: { access: ADMIN_ACTORS },
      schema: { body: ShortUrlUpdateBody, response: { 200: Envelope(ShortUrlRow) } },
    },
    async (request, reply) => {
      const id = toId(request.body.id, 'id');
      const v = validateShortUrl(request.body);
      await assertGroupExists(v.param.group);
      let rows: StoredRow[];
      try {
        rows = (
          await app.db.query<StoredRow>(
            `UPDATE short_urls SET actor = $2, target = $3, url_key = $4, param = $5::jsonb, updated_at = now()
              WHERE id = $1 RETURNING ${COLUMNS}`,
            [id, v.actor, v.target, v.urlKey, JSON.stringify(v.param)],
          )
        ).rows;
      } catch (err) {
        if (isUniqueViolation(err)) throw new ApiError(409, 'short_url_key_taken', DUPLICATE_KEY);
        throw err;
      }
      const row = rows[0];
      if (!row) throw new ApiError(404, 'not_found', 'No such short URL.');
      await auditRow(request.auth!, request.ip, 'settings.short_url.update', row.id, row.url_key);
      return reply.ok(withUrl(row));
    },
  );

  app.post(
    '/shorten_url/delete.php',
    {
      config: { access: ADMIN_ACTORS },
      schema: { body: ShortUrlDeleteBody, response: { 200: Envelope(DeletedResult) } },
    },
    async (request, reply) => {
      const id = toId(request.body.id, 'id');
      const { rows } = await app.db.query<{ url_key: string }>(
        'DELETE FROM short_urls WHERE id = $1 RETURNING url_key',
        [id],
      );
      if (rows.length === 0) throw new ApiError(404, 'not_found', 'No such short URL.');
      await auditRow(request.auth!, request.ip, 'settings.short_url.delete', id, rows[0]!.url_key);
      return reply.ok({ deleted: 1 } satisfies DeletedResult);
    },
  );
}
