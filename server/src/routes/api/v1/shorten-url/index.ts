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
import {
  deleteShortUrl,
  groupCodeExists,
  insertShortUrl,
  listShortUrls,
  updateShortUrl,
  type StoredShortUrl,
} from '../../../../lib/management/short-url-store';
import { validateShortUrl } from '../../../../lib/management/short-urls';

/** shorten_url/select, insert, update, delete (spec §3 "Short URL", §5, §7). */
export default async function shortenUrlRoutes(app: App): Promise<void> {
  installFieldErrorHandler(app);

  /** A URL bound to an exam group names one that exists (by its code). */
  async function assertGroupExists(code: string | number | undefined): Promise<void> {
    if (code === undefined) return;
    if (!(await groupCodeExists(app.db, String(code))))
      throw new FieldError('group', 'この試験団体コードの試験団体はありません。');
  }
  const origin = app.config.publicOrigin.replace(/\/+$/, '');
  const withUrl = (r: StoredShortUrl): ShortUrlRow => ({ ...r, url: `${origin}/s/${r.url_key}` });
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
      const rows = await listShortUrls(app.db);
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
      const row = await insertShortUrl(app.db, v);
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
      const row = await updateShortUrl(app.db, id, v);
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
      const urlKey = await deleteShortUrl(app.db, id);
      if (urlKey === null) throw new ApiError(404, 'not_found', 'No such short URL.');
      await auditRow(request.auth!, request.ip, 'settings.short_url.delete', id, urlKey);
      return reply.ok({ deleted: 1 } satisfies DeletedResult);
    },
  );
}
