/**
 * The examinee search form's shape and its empty state (the slice starts from it); the search page's
 * validation of it is examinees-validation.ts.
 */
import type { TranslationKey } from '../../lib/translation-key';

/** A validation failure: an i18n key (validation namespace) with its values. */
export interface FieldMessage {
  key: TranslationKey;
  values?: Record<string, string | number> & { fieldKey?: TranslationKey };
}

export type FieldErrors = Partial<Record<string, FieldMessage>>;

/** The search form (spec §2 "Examinee search conditions"); every field is text as typed or selected. */
export interface SearchForm {
  group: string;
  groupText: string;
  testName: string;
  region: string;
  dateFrom: string;
  dateTo: string;
  timeFrom: string;
  timeTo: string;
  loginId: string;
  examName: string;
  isLikeSearch: boolean;
  record: string;
  withMark: string;
  cheatingLevelFrom: string;
  cheatingLevelTo: string;
  score: string;
  aiAnalysisFlag: string;
  aiAnalysisBatchFlag: string;
  aiNamematch: string;
  markId: string;
}

export const EMPTY_FORM: SearchForm = {
  group: '',
  groupText: '',
  testName: '',
  region: '',
  dateFrom: '',
  dateTo: '',
  timeFrom: '',
  timeTo: '',
  loginId: '',
  examName: '',
  isLikeSearch: false,
  record: '',
  withMark: '',
  cheatingLevelFrom: '',
  cheatingLevelTo: '',
  score: '',
  aiAnalysisFlag: '',
  aiAnalysisBatchFlag: '',
  aiNamematch: '',
  markId: '',
};
