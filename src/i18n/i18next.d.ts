import 'i18next';
import type common from './locales/ja/common.json';
import type errors from './locales/ja/errors.json';
import type errorsCode from './locales/ja/errors/code.json';
import type layout from './locales/ja/layout.json';
import type login from './locales/ja/login.json';
import type alerting from './locales/ja/alerting.json';
import type pages from './locales/ja/pages.json';
import type footer from './locales/ja/footer.json';
import type templates from './locales/ja/templates.json';
import type tester from './locales/ja/tester.json';
import type testerEnvSetting from './locales/ja/tester/envSetting.json';
import type testerExamEnd from './locales/ja/tester/examEnd.json';
import type identification from './locales/ja/identification.json';
import type identificationMonitor from './locales/ja/identification/monitor.json';
import type identificationAi from './locales/ja/identification/ai.json';
import type examining from './locales/ja/examining.json';
import type live from './locales/ja/live.json';
import type recording from './locales/ja/recording.json';
import type monitoring from './locales/ja/monitoring.json';
import type monitoringMarking from './locales/ja/monitoring/marking.json';
import type monitoringHistory from './locales/ja/monitoring/history.json';
import type monitoringTesterStatus from './locales/ja/monitoring/testerStatus.json';
import type monitoringChat from './locales/ja/monitoring/chat.json';
import type monitoringChatPanel from './locales/ja/monitoring/chatPanel.json';
import type monitoringAuthConfirm from './locales/ja/monitoring/authConfirm.json';
import type examinees from './locales/ja/examinees.json';
import type examineesDetail from './locales/ja/examinees/detail.json';
import type examineesCsv from './locales/ja/examinees/csv.json';
import type management from './locales/ja/management.json';
import type managementMenu from './locales/ja/management/menu.json';
import type managementSummary from './locales/ja/management/summary.json';
import type managementAccessLimit from './locales/ja/management/accessLimit.json';
import type managementLogview from './locales/ja/management/logview.json';
import type managementLogins from './locales/ja/management/logins.json';
import type managementRetention from './locales/ja/management/retention.json';
import type managementDeletePlan from './locales/ja/management/deletePlan.json';
import type managementShortUrl from './locales/ja/management/shortUrl.json';
import type managementMonitoring from './locales/ja/management/monitoring.json';
import type managementAnalysis from './locales/ja/management/analysis.json';
import type managementTerms from './locales/ja/management/terms.json';
import type validation from './locales/ja/validation.json';
import type accounts from './locales/ja/accounts.json';
import type widerView from './locales/ja/widerView.json';
import type phonePage from './locales/ja/phone/page.json';
import type phonePanel from './locales/ja/phone/panel.json';

/**
 * Typed keys (STYLE habit 14): Japanese is the source language. A namespace added under locales/ja is
 * added here too, and so is a part of one (locales/ja/<ns>/<key>.json holds `<ns>:<key>.*`).
 */
declare module 'i18next' {
  interface CustomTypeOptions {
    defaultNS: 'common';
    resources: {
      common: typeof common;
      errors: typeof errors & { code: typeof errorsCode };
      layout: typeof layout;
      login: typeof login;
      alerting: typeof alerting;
      pages: typeof pages;
      footer: typeof footer;
      templates: typeof templates;
      tester: typeof tester & { envSetting: typeof testerEnvSetting; examEnd: typeof testerExamEnd };
      identification: typeof identification & {
        monitor: typeof identificationMonitor;
        ai: typeof identificationAi;
      };
      examining: typeof examining;
      live: typeof live;
      recording: typeof recording;
      monitoring: typeof monitoring & {
        marking: typeof monitoringMarking;
        history: typeof monitoringHistory;
        testerStatus: typeof monitoringTesterStatus;
        chat: typeof monitoringChat;
        chatPanel: typeof monitoringChatPanel;
        authConfirm: typeof monitoringAuthConfirm;
      };
      examinees: typeof examinees & { detail: typeof examineesDetail; csv: typeof examineesCsv };
      management: typeof management & {
        menu: typeof managementMenu;
        summary: typeof managementSummary;
        accessLimit: typeof managementAccessLimit;
        logview: typeof managementLogview;
        logins: typeof managementLogins;
        retention: typeof managementRetention;
        deletePlan: typeof managementDeletePlan;
        shortUrl: typeof managementShortUrl;
        monitoring: typeof managementMonitoring;
        analysis: typeof managementAnalysis;
        terms: typeof managementTerms;
      };
      validation: typeof validation;
      accounts: typeof accounts;
      widerView: typeof widerView;
      phone: { page: typeof phonePage; panel: typeof phonePanel };
    };
  }
}
