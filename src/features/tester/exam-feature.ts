import type { FeatureDef } from '../../app/features';
import { addExamListeners } from './exam-listeners';

/**
 * The exam page's own effects (exam-listeners.ts): registered with /examining, where the exam runs; no state
 * of its own (it acts on the tester slice).
 */
export const examFeature: FeatureDef = {
  name: 'exam',
  reducers: {},
  addListeners: addExamListeners,
};
