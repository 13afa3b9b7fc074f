/** The search page's checks of the search form (spec §5) before it asks the server. */
import type { FieldErrors, SearchForm } from './examinees-form';

const DATE = /^(\d{4,})-(\d{2})-(\d{2})$/;

/** Field label keys (examinees namespace) used inside validation messages. */
const LABEL = {
  dateFrom: 'examinees:form.dateFrom',
  dateTo: 'examinees:form.dateTo',
  score: 'examinees:form.score',
  aiNamematch: 'examinees:form.aiNamematch',
  cheatingLevelFrom: 'examinees:form.cheatingLevelFrom',
  cheatingLevelTo: 'examinees:form.cheatingLevelTo',
} as const;

/**
 * spec §5 rules of the search form: group or group code, not both; a date's year must not exceed 9999;
 * a time needs its date and from must not be after to; numeric fields hold digits only.
 */
export function validateSearch(f: SearchForm): FieldErrors {
  const errors: FieldErrors = {};
  if (f.group !== '' && f.groupText.trim() !== '') errors.groupText = { key: 'validation:groupOrCode' };
  for (const field of ['dateFrom', 'dateTo'] as const) {
    const v = f[field];
    if (v === '') continue;
    const m = DATE.exec(v);
    if (!m || Number(m[1]) > 9999)
      errors[field] = { key: 'validation:date', values: { fieldKey: LABEL[field] } };
  }
  if (!errors.dateFrom && !errors.dateTo) {
    if ((f.timeFrom && !f.dateFrom) || (f.timeTo && !f.dateTo)) {
      errors.dateTo = { key: 'validation:dateCombination' };
    } else if (f.dateFrom && f.dateTo) {
      const from = `${f.dateFrom} ${f.timeFrom || '00:00'}`;
      const to = `${f.dateTo} ${f.timeTo || '23:59'}`;
      if (from > to) errors.dateTo = { key: 'validation:dateCombination' };
    }
  }
  for (const field of ['score', 'aiNamematch', 'cheatingLevelFrom', 'cheatingLevelTo'] as const) {
    const v = f[field].trim();
    if (v !== '' && !/^\d{1,9}$/.test(v))
      errors[field] = { key: 'validation:numeric', values: { fieldKey: LABEL[field] } };
  }
  if (
    !errors.cheatingLevelFrom &&
    !errors.cheatingLevelTo &&
    f.cheatingLevelFrom !== '' &&
    f.cheatingLevelTo !== '' &&
    Number(f.cheatingLevelFrom) > Number(f.cheatingLevelTo)
  ) {
    errors.cheatingLevelTo = {
      key: 'validation:range',
      values: { fieldKey: LABEL.cheatingLevelTo, min: f.cheatingLevelFrom, max: 3 },
    };
  }
  return errors;
}

/** Whether the form holds at least one condition (spec §8: a CSV needs search parameters). */
export function hasConditions(f: SearchForm): boolean {
  return Object.entries(f).some(([k, v]) => k !== 'isLikeSearch' && typeof v === 'string' && v.trim() !== '');
}
