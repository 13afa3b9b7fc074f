import { createAsyncThunk } from '@reduxjs/toolkit';
import {
  DEFAULT_TEMPLATE_ID,
  getFooterTemplate,
  type FooterTemplateKind,
  type Template,
} from '../../api/templates';
import type { AppDispatch, RootState } from '../../app/store';
import { loadingFinished, loadingStarted } from '../layout/layout-slice';
import { showAlert } from '../layout/layout-thunks';
import { selectStartupParams } from '../startup/startup-slice';
import type { StartupKey } from '../startup/startup-slice';

export type { FooterTemplateKind, Template };

/** Which start-up parameter holds each footer page's template id (spec §2: "content depends on template ids"). */
const TEMPLATE_ID_PARAM: Record<FooterTemplateKind, StartupKey> = {
  termsOfService: 'termsOfServiceTemplate',
  privacyPolicy: 'privacyPolicyTemplate',
  inquiry: 'inquiryTemplate',
};

export interface FooterTemplateLoad {
  template: Template | null;
  /** The requested template could not be loaded (the default, when it loaded, is in `template`). */
  failed: boolean;
}

/**
 * Loads a footer template (terms, privacy, inquiry). Spec §8: on failure, a failure text in a modal and the
 * default template (id -1) instead.
 */
export const footerTemplateRequested = createAsyncThunk<
  FooterTemplateLoad,
  { kind: FooterTemplateKind; lang: string },
  { state: RootState; dispatch: AppDispatch }
>('templates/footerTemplateRequested', async ({ kind, lang }, { dispatch, getState, signal }) => {
  const raw = selectStartupParams(getState())[TEMPLATE_ID_PARAM[kind]];
  const templateId = typeof raw === 'number' ? raw : DEFAULT_TEMPLATE_ID;
  dispatch(loadingStarted());
  try {
    try {
      return { template: await getFooterTemplate(kind, templateId, lang), failed: false };
    } catch {
      if (signal.aborted) return { template: null, failed: true };
      void dispatch(showAlert({ type: 'error', messageKey: `templates:loadFailed.${kind}` }));
    }
    if (templateId === DEFAULT_TEMPLATE_ID) return { template: null, failed: true };
    try {
      return { template: await getFooterTemplate(kind, DEFAULT_TEMPLATE_ID, lang), failed: true };
    } catch {
      return { template: null, failed: true };
    }
  } finally {
    dispatch(loadingFinished());
  }
});
