import { Type, type Static } from 'typebox';
import { Int32 } from './common';
import { TEMPLATE_KINDS, TEMPLATE_LANGS } from './constants/templates';
export * from './constants/templates';

export const TemplateQuery = Type.Object({
  template_id: Type.Optional(Type.Union([Int32, Type.String({ pattern: '^-?[0-9]{1,9}$' })])),
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

/** One stored template (templates/list, templates/save); `body` is sanitised HTML. */
export const TemplateAdminRow = Type.Object({
  kind: Type.String(),
  template_id: Type.Integer(),
  lang: Type.String(),
  title: Type.String(),
  body: Type.String(),
  footer_url: Type.String(),
  updated_at: Type.String(),
});
export type TemplateAdminRow = Static<typeof TemplateAdminRow>;

export const TemplateAdminListResult = Type.Object({ list: Type.Array(TemplateAdminRow) });
export type TemplateAdminListResult = Static<typeof TemplateAdminListResult>;

/** templates/save: insert or replace one template; the body is sanitised by the server. */
export const TemplateSaveBody = Type.Object({
  kind: Type.Union(TEMPLATE_KINDS.map((k) => Type.Literal(k))),
  template_id: Type.Union([Int32, Type.String({ pattern: '^[0-9]{1,9}$' })]),
  lang: Type.Union(TEMPLATE_LANGS.map((l) => Type.Literal(l))),
  title: Type.String({ maxLength: 256 }),
  body: Type.String({ maxLength: 200_000 }),
  footer_url: Type.Optional(Type.String({ maxLength: 2048 })),
});
export type TemplateSaveBody = Static<typeof TemplateSaveBody>;
