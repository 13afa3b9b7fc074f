import { Type, type Static } from 'typebox';

export const TEMPLATE_KINDS = [
  'examining_term',
  'env_setting_term',
  'terms_of_service',
  'privacy_policy',
  'inquiry',
] as const;
export type TemplateKind = (typeof TEMPLATE_KINDS)[number];

export const TemplateQuery = Type.Object({
  template_id: Type.Optional(Type.Union([Type.Integer(), Type.String({ pattern: '^-?[0-9]{1,9}$' })])),
  lang: Type.Optional(Type.String({ maxLength: 8 })),
});
export type TemplateQuery = Static<typeof TemplateQuery>;

/** Template body (examining notice, env-setting term) and footer URL (terms, privacy, inquiry). */
export const TemplateResult = Type.Object({
  template_id: Type.Integer(),
  title: Type.String(),
  template_body: Type.String(),
  template_footer_url: Type.String(),
  updated_at: Type.String(),
});
export type TemplateResult = Static<typeof TemplateResult>;

export const TemplateListResult = Type.Object({
  list: Type.Array(
    Type.Object({
      template_id: Type.Integer(),
      title: Type.String(),
      lang: Type.String(),
      updated_at: Type.String(),
    }),
  ),
});
export type TemplateListResult = Static<typeof TemplateListResult>;
