import type { TemplateResult } from '@contract/templates';
import { ApiError } from './api-error';
import { call } from './client';

/** The footer templates of spec §7: terms of service, privacy policy, inquiry. */
export type FooterTemplateKind = 'termsOfService' | 'privacyPolicy' | 'inquiry';

const ENDPOINTS: Record<FooterTemplateKind, string> = {
  termsOfService: 'get_terms_of_service',
  privacyPolicy: 'get_privacy_policy',
  inquiry: 'get_inquiry',
};

/** Spec §9: template ids default to -1, the default template. */
export const DEFAULT_TEMPLATE_ID = -1;

/** A template, camelCase. */
export interface Template {
  templateId: number;
  title: string;
  templateBody: string;
  templateFooterUrl: string;
  updatedAt: string;
}

/**
 * Spec §5: footer and notice responses must hold strings, else an error is raised (and the caller uses the
 * default template).
 */
function toTemplate(endpoint: string, r: unknown): Template {
  const v = (r ?? {}) as Partial<Record<keyof TemplateResult, unknown>>;
  const body = v.template_body ?? '';
  const footer = v.template_footer_url ?? '';
  if (typeof body !== 'string' || typeof footer !== 'string') {
    throw new ApiError(
      endpoint,
      500,
      'The template response does not hold strings.',
      'errors:default',
      'invalid_response',
    );
  }
  return {
    templateId: typeof v.template_id === 'number' ? v.template_id : DEFAULT_TEMPLATE_ID,
    title: typeof v.title === 'string' ? v.title : '',
    templateBody: body,
    templateFooterUrl: footer,
    updatedAt: typeof v.updated_at === 'string' ? v.updated_at : '',
  };
}

/** GET get_terms_of_service / get_privacy_policy / get_inquiry with template_id and lang (spec §7). */
export async function getFooterTemplate(
  kind: FooterTemplateKind,
  templateId: number,
  lang: string,
): Promise<Template> {
  const endpoint = ENDPOINTS[kind];
  const r = await call<TemplateResult>(endpoint, {
    method: 'GET',
    params: { template_id: templateId, lang },
  });
  return toTemplate(endpoint, r);
}
