import { AiIdentificationView } from '../../features/identification/components/ai-identification-view';

/** /identification-ai (spec §2): composes the feature's view; the page holds no logic. */
export default function IdentificationAiPage() {
  return <AiIdentificationView />;
}
