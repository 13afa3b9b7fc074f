import type { FeatureDef } from '../../app/features';
import examinees from './examinees-slice';
import validationJa from '../../i18n/locales/ja/validation.json';

/**
 * The `examinees` feature: registered when a route that uses it loads (app/features.ts). Its texts are the
 * validation messages of its search form; the examinee views' own (`examinees`, its `detail` and `csv` parts)
 * are their pages'.
 */
export const examineesFeature: FeatureDef = {
  name: 'examinees',
  reducers: { examinees },
  texts: { validation: validationJa },
};
