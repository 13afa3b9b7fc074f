import type { TemplateAdminListResult, TemplateAdminRow } from '@contract/templates';
import { call } from './client';
import { camelize, type Camelize } from '../lib/case';

/** A stored template (body is sanitised HTML). */
export type TemplateAdmin = Camelize<TemplateAdminRow>;
/** The kinds the managers edit: terms of use, privacy policy, inquiry, examining notes. */
export type EditableTemplateKind = 'terms_of_service' | 'privacy_policy' | 'inquiry' | 'examining_term';

/** GET templates/list: every kind, template id and language. */
export async function listTemplatesForEdit(): Promise<TemplateAdmin[]> {
  return camelize(await call<TemplateAdminListResult>('templates/list')).list;
}

/** POST templates/save: stores one template; returns it as stored (the server sanitises the body). */
export async function saveTemplate(t: {
  kind: EditableTemplateKind;
  templateId: number;
  lang: 'ja' | 'en';
  title: string;
  body: string;
  footerUrl: string;
}): Promise<TemplateAdmin> {
  return camelize(
    await call<TemplateAdminRow>('templates/save', {
      method: 'POST',
      data: {
        kind: t.kind,
        template_id: t.templateId,
        lang: t.lang,
        title: t.title,
        body: t.body,
        footer_url: t.footerUrl,
      },
    }),
  );
}
