import type { FastifyReply } from 'fastify';
import type { App } from '../lib/app-types';
import { findShortUrl, type ShortUrlTarget } from '../lib/management/short-url-store';

const KEY_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

/** A start-up query value as text (spec §3: the SPA turns numeric strings back into numbers). */
function queryValue(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'boolean') return v ? '1' : '0';
  if (Array.isArray(v)) return v.map(queryValue).join(',');
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

/**
 * The start-up query of a short URL: its stored parameters (snake_case, as a start-up query carries them),
 * plus `actor` and `target` from the row when the parameters leave them out.
 */
export function startupQuery(row: ShortUrlTarget): string {
  const raw = typeof row.param === 'string' ? (JSON.parse(row.param) as unknown) : row.param;
  const param: Record<string, unknown> =
    raw && typeof raw === 'object' && !Array.isArray(raw) ? { ...(raw as object) } : {};
  if (param.actor === undefined) param.actor = row.actor;
  if (param.target === undefined && row.target) param.target = row.target;
  // The key travels with the start-up so that login can bind the stored parameters to the sitting.
  param.url_key = row.url_key;
  return Object.entries(param)
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(queryValue(v))}`)
    .join('&');
}

function notFoundPage(reply: FastifyReply): FastifyReply {
  return reply
    .code(404)
    .type('text/html; charset=utf-8')
    .header('Cache-Control', 'no-store')
    .send(
      `<!doctype html>
<html lang="ja">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>ページが見つかりません / Page not found</title></head>
<body>
<h1>ページが見つかりません</h1>
<p>このURLは登録されていないか、削除されました。試験実施者から案内されたURLをご確認ください。</p>
<h1 lang="en">Page not found</h1>
<p lang="en">This URL is not registered or has been removed. Please check the URL you were given by the exam organiser.</p>
</body>
</html>
`,
    );
}

/**
 * GET /s/:url_key (ARCHITECTURE.md "Running"): redirects a registered short URL to the SPA with its start-up
 * query (`/?actor=1&lang=ja&…`); an unknown key gets a 404 page.
 */
export default async function shortUrlRoutes(app: App): Promise<void> {
  app.route<{ Params: { url_key: string } }>({
    method: ['GET', 'HEAD'],
    url: '/s/:url_key',
    handler: async (request, reply) => {
      const key = request.params.url_key;
      if (!KEY_PATTERN.test(key)) return notFoundPage(reply);
      const row = await findShortUrl(app.db, key);
      if (!row) return notFoundPage(reply);
      const query = startupQuery(row);
      // The parameters can be edited at any time, so the redirect must not be cached.
      return reply.header('Cache-Control', 'no-store').redirect(query ? `/?${query}` : '/', 302);
    },
  });
}
