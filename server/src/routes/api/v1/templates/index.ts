import { Type } from 'typebox';
import { Envelope } from '../../../../../../contract/common';
import {
  TemplateListResult,
  TemplateQuery,
  TemplateResult,
  type TemplateKind,
} from '../../../../../../contract/templates';
import { notFound } from '../../../../lib/api-error';
import type { App } from '../../../../lib/app-types';
import { toWireTime } from '../../../../lib/management-time';

interface TemplateRow {
  template_id: number;
  title: string;
  body: string;
  footer_url: string;
  lang: string;
  updated_at: Date | string;
}

/** The template used when the start-up parameters carry -1 or nothing (spec §3 defaults). */
const DEFAULT_TEMPLATE_ID = 0;
const FALLBACK_LANG = 'ja';

/** spec §1: the interface is ja or en; zn (and anything unknown) maps to Japanese. */
function templateLang(lang: string | undefined): string {
  const l = (lang ?? '').trim().toLowerCase();
  return l === 'en' ? 'en' : FALLBACK_LANG;
}

const iso = (v: Date | string): string => toWireTime(v)!;

/** Endpoint name → template kind (spec §7: each has a `_list` variant). */
const ENDPOINTS: { name: string; kind: TemplateKind; method: 'GET' | 'POST' }[] = [
  { name: 'get_examining_term', kind: 'examining_term', method: 'POST' },
  { name: 'get_env_setting_term', kind: 'env_setting_term', method: 'GET' },
  { name: 'get_terms_of_service', kind: 'terms_of_service', method: 'GET' },
  { name: 'get_privacy_policy', kind: 'privacy_policy', method: 'GET' },
  { name: 'get_inquiry', kind: 'inquiry', method: 'GET' },
];

const ListQuery = Type.Object({ lang: Type.Optional(Type.String({ maxLength: 8 })) });

/**
 * Template reads (spec §7): the examining notice, env-setting term, terms of service, privacy policy and
 * inquiry. Public, because terms are shown before login; they hold nothing sensitive.
 */
export default async function templateRoutes(app: App): Promise<void> {
  async function findTemplate(kind: TemplateKind, q: TemplateQuery): Promise<TemplateResult> {
    const raw = q.template_id === undefined ? -1 : Number(q.template_id);
    const id = raw === -1 ? DEFAULT_TEMPLATE_ID : raw;
    const lang = templateLang(q.lang);
    const { rows } = await app.db.query<TemplateRow>(
      `SELECT template_id, title, body, footer_url, lang, updated_at FROM templates
        WHERE kind = $1 AND template_id = $2 AND lang IN ($3, $4)
        ORDER BY (lang = $3) DESC LIMIT 1`,
      [kind, id, lang, FALLBACK_LANG],
    );
    const row = rows[0];
    if (!row) throw notFound(`No such template: ${kind} ${id}.`);
    return {
      template_id: row.template_id,
      title: row.title,
      template_body: row.body,
      template_footer_url: row.footer_url,
      updated_at: iso(row.updated_at),
    };
  }

  for (const e of ENDPOINTS) {
    if (e.method === 'POST') {
      app.post(
        `/${e.name}.php`,
        {
          config: { access: 'public' },
          schema: {
            querystring: TemplateQuery,
            body: TemplateQuery,
            response: { 200: Envelope(TemplateResult) },
          },
          // The parameters may come in the body (JSON or form) or, as for the GET calls, in the query; a bare
          // POST means the default template.
          preValidation: async (request) => {
            if (request.body === undefined || request.body === null) request.body = {};
          },
        },
        async (request, reply) =>
          reply.ok(await findTemplate(e.kind, { ...request.query, ...(request.body ?? {}) })),
      );
    } else {
      app.get(
        `/${e.name}.php`,
        {
          config: { access: 'public' },
          schema: { querystring: TemplateQuery, response: { 200: Envelope(TemplateResult) } },
        },
        async (request, reply) => reply.ok(await findTemplate(e.kind, request.query)),
      );
    }

    app.get(
      `/${e.name}_list.php`,
      {
        config: { access: 'public' },
        schema: { querystring: ListQuery, response: { 200: Envelope(TemplateListResult) } },
      },
      async (request, reply) => {
        const lang = request.query.lang === undefined ? null : templateLang(request.query.lang);
        const { rows } = await app.db.query<TemplateRow>(
          `SELECT template_id, title, lang, updated_at, '' AS body, '' AS footer_url FROM templates
            WHERE kind = $1 AND ($2::text IS NULL OR lang = $2)
            ORDER BY template_id, lang`,
          [e.kind, lang],
        );
        const result: TemplateListResult = {
          list: rows.map((r) => ({
            template_id: r.template_id,
            title: r.title,
            lang: r.lang,
            updated_at: iso(r.updated_at),
          })),
        };
        return reply.ok(result);
      },
    );
  }
}
