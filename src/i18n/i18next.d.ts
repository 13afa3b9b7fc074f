import 'i18next';
import type common from './locales/ja/common.json';
import type errors from './locales/ja/errors.json';
import type layout from './locales/ja/layout.json';
import type login from './locales/ja/login.json';
import type alerting from './locales/ja/alerting.json';
import type pages from './locales/ja/pages.json';
import type footer from './locales/ja/footer.json';
import type templates from './locales/ja/templates.json';
import type tester from './locales/ja/tester.json';
import type identification from './locales/ja/identification.json';
import type examining from './locales/ja/examining.json';
import type live from './locales/ja/live.json';
import type recording from './locales/ja/recording.json';
import type monitoring from './locales/ja/monitoring.json';
import type examinees from './locales/ja/examinees.json';
import type management from './locales/ja/management.json';
import type validation from './locales/ja/validation.json';
import type accounts from './locales/ja/accounts.json';
import type widerView from './locales/ja/widerView.json';
import type phone from './locales/ja/phone.json';

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
      login: typeof login;
      alerting: typeof alerting;
      pages: typeof pages;
      footer: typeof footer;
      templates: typeof templates;
      tester: typeof tester;
      identification: typeof identification;
      examining: typeof examining;
      live: typeof live;
      recording: typeof recording;
      monitoring: typeof monitoring;
      examinees: typeof examinees;
      management: typeof management;
      validation: typeof validation;
      accounts: typeof accounts;
      widerView: typeof widerView;
      phone: typeof phone;
    };
  }
}
