import type { FeatureDef } from '../../app/features';
import { examFeature } from '../../features/tester/exam-feature';
import { recordingFeature } from '../../features/recording/recording-feature';
import { widerViewFeature } from '../../features/wider-view/wider-view-feature';

/**
 * What /examining runs once the sitting is opened, not for its first render: the exam's own effects, the
 * recording and the wider view (their state and listeners). The page fetches this chunk as soon as its module
 * runs, in parallel with its first render, and opens the sitting (examining-thunks.ts `examiningEntered`) only
 * once these are registered: every event they act on comes from that opening or from what follows it.
 */
export const features: readonly FeatureDef[] = [examFeature, recordingFeature, widerViewFeature];
