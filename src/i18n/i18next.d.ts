import 'i18next';
import type common from './locales/ja/common.json';
import type errors from './locales/ja/errors.json';
import type layout from './locales/ja/layout.json';

/**
 * Typed keys (STYLE habit 14): Japanese is the source language. A namespace added under locales/ja is
 * added here too.
 */
declare module 'i18next' {
  interface CustomTypeOptions {
    defaultNS: 'common';
    resources: {
      common: typeof common;
      errors: typeof errors;
      layout: typeof layout;
    };
  }
}
