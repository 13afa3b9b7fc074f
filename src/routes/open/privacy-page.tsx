import { FooterTemplateView } from '../../features/templates/components/footer-template-view';

/** /privacy: the template chosen by the start-up parameters (spec §2), opened from the footer in a new window. */
export default function PrivacyPage() {
  return <FooterTemplateView kind="privacyPolicy" />;
}
