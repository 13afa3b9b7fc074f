import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router-dom';
import { PageTitle } from '../../components/layout/page-title';
import { sameOriginPath } from './same-origin';

/** /iframe?src=…: embeds a page of this site (spec §2 "Embedded page"). */
export default function IframePage() {
  const { t } = useTranslation('pages');
  const [search] = useSearchParams();
  const src = sameOriginPath(search.get('src'));
  return (
    <section>
      <PageTitle className="visually-hidden">{t('titles.iframe')}</PageTitle>
      {src ? (
        <iframe
          title={t('iframe.frameTitle')}
          src={src}
          className="w-100 border-0"
          style={{ minHeight: '70vh' }}
        />
      ) : (
        <p className="text-danger">{t('iframe.invalid')}</p>
      )}
    </section>
  );
}
