import { ADMIN_ACTORS, Envelope } from '../../../../../../contract/common';
import {
  TemplateAdminListResult,
  TemplateAdminRow,
  TemplateSaveBody,
} from '../../../../../../contract/templates';
import type { App } from '../../../../lib/app-types';
import { audit } from '../../../../lib/audit';
import { sanitizeHtml, stripTags } from '../../../../lib/html-sanitize';
import { FieldError, MSG, installFieldErrorHandler } from '../../../../lib/management-errors';
import { listTemplatesForAdmin, saveTemplate } from '../../../../lib/templates/templates';

/** Largest template body kept, after sanitising (the seeded terms are about 20 kB). */
const BODY_MAX = 100_000;
const TEMPLATE_ID_MAX = 999_999_999;

function isHttpUrl(v: string): boolean {
  try {
    const u = new URL(v);
    return (u.protocol === 'https:' || u.protocol === 'http:') && u.hostname !== '';
  } catch {
    return false;
  }
}

/**
 * templates/list.php and templates/save.php (terms and notes editing): the system manager and
 * the supervisor edit the terms of use, privacy policy, inquiry and examining-notes templates (ja and en).
 * Bodies are stored as sanitised HTML (lib/html-sanitize.ts); the examinee pages read them through the
 * public get_* template endpoints.
 */
export default async function templateAdminRoutes(app: App): Promise<void> {
  installFieldErrorHandler(app);

  app.get(
    '/templates/list.php',
    {
      config: { access: ADMIN_ACTORS },
      schema: { response: { 200: Envelope(TemplateAdminListResult) } },
    },
    async (_request, reply) => {
      return reply.ok({ list: await listTemplatesForAdmin(app.db) } satisfies TemplateAdminListResult);
    },
  );

  app.post(
    '/templates/save.php',
    {
      config: { access: ADMIN_ACTORS },
      schema: { body: TemplateSaveBody, response: { 200: Envelope(TemplateAdminRow) } },
    },
    async (request, reply) => {
      const auth = request.auth!;
      const b = request.body;
      const templateId = Number(b.template_id);
      if (!Number.isSafeInteger(templateId) || templateId < 0 || templateId > TEMPLATE_ID_MAX)
        throw new FieldError('template_id', `template_id must be 0–${TEMPLATE_ID_MAX}.`);
      const title = stripTags(b.title).trim();
      if (title === '') throw new FieldError('title', 'タイトルを入力してください。');
      const body = sanitizeHtml(b.body).trim();
      if (body.length > BODY_MAX)
        throw new FieldError('body', `本文は${BODY_MAX}文字以内で入力してください。`);
      const footerUrl = (b.footer_url ?? '').trim();
      if (footerUrl !== '' && !isHttpUrl(footerUrl))
        throw new FieldError('footer_url', MSG.url('フッターURL'));
      const row = await saveTemplate(app.db, {
        kind: b.kind,
        templateId,
        lang: b.lang,
        title,
        body,
        footerUrl,
      });
      await audit(app.db, {
        type: 'settings.template.save',
        actor: auth.actor,
        userId: auth.userId,
        loginId: auth.loginId,
        ip: request.ip,
        target: `template:${b.kind}:${templateId}:${b.lang}`,
        details: JSON.stringify({ title, body_length: body.length, footer_url: footerUrl }),
      });
      return reply.ok(row);
    },
  );
}
