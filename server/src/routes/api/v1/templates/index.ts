import { Type } from 'typebox';
import { Envelope } from '../../../../../../contract/common';
import {
  TemplateListResult,
  TemplateQuery,
  TemplateResult,
  type TemplateKind,
} from '../../../../../../contract/templates';
import type { App } from '../../../../lib/app-types';
import { findTemplate, listTemplateTitles, templateLang } from '../../../../lib/templates/templates';

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
          reply.ok(await findTemplate(app.db, e.kind, { ...request.query, ...(request.body ?? {}) })),
      );
    } else {
      app.get(
        `/${e.name}.php`,
        {
          config: { access: 'public' },
          schema: { querystring: TemplateQuery, response: { 200: Envelope(TemplateResult) } },
        },
        async (request, reply) => reply.ok(await findTemplate(app.db, e.kind, request.query)),
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
        const result: TemplateListResult = { list: await listTemplateTitles(app.db, e.kind, lang) };
        return reply.ok(result);
      },
    );
  }
}
