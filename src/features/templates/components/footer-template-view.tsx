import { useTranslation } from 'react-i18next';
import { PageTitle } from '../../../components/layout/page-title';
import { SafeHtml } from '../../../components/ui/safe-html';
import { useFooterTemplate } from '../use-footer-template';
import type { FooterTemplateKind } from '../template-thunks';

const TITLE_KEY = {
  termsOfService: 'titles.terms',
  privacyPolicy: 'titles.privacy',
  inquiry: 'titles.inquiry',
} as const;

/** An http(s) URL, or null. */
export function httpUrl(v: string): string | null {
  try {
    const u = new URL(v.trim());
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.href : null;
  } catch {
    return null;
  }
}

/**
 * Terms, privacy or inquiry (spec §2): the template body as safe HTML; when the body is empty, a link to
 * the template's footer URL.
 */
export function FooterTemplateView({ kind }: { kind: FooterTemplateKind }) {
  const { t } = useTranslation(['pages', 'templates', 'footer']);
  const state = useFooterTemplate(kind);
  const template = state.status === 'done' ? state.template : null;
  const body = template?.templateBody.trim() ?? '';
  const link = template && !body ? httpUrl(template.templateFooterUrl) : null;

  return (
    <article aria-busy={state.status === 'loading'}>
      <PageTitle>{t(TITLE_KEY[kind])}</PageTitle>
      {body && <SafeHtml html={body} className="template-body" />}
      {link && (
        <p>
          <a href={link} target="_blank" rel="noopener noreferrer">
            {t('templates:footerLink')}
            <span className="visually-hidden">{t('footer:newWindow')}</span>
          </a>
        </p>
      )}
      {state.status === 'done' && !body && !link && (
        <p className="text-body-secondary">{t('templates:empty')}</p>
      )}
    </article>
  );
}
