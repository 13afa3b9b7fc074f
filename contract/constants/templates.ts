// The templates group's constants: template kinds and languages.
// Plain values without TypeBox, so the SPA may import them (contract/README.md).

export const TEMPLATE_KINDS = [
  'examining_term',
  'env_setting_term',
  'terms_of_service',
  'privacy_policy',
  'inquiry',
] as const;
export type TemplateKind = (typeof TEMPLATE_KINDS)[number];

/** Languages a template is stored in (spec §1: ja, en). */
export const TEMPLATE_LANGS = ['ja', 'en'] as const;
