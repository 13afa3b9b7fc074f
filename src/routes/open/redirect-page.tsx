import { useEffect, useRef } from 'react';
import Button from 'react-bootstrap/Button';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router-dom';
import { PageTitle } from '../../components/layout/page-title';
import { sameOriginPath } from './same-origin';

const CHILD_WINDOW_NAME = 'child';

/** /redirect?to=…: opens a same-origin page in a child window (spec §2); anything else opens nothing. */
export default function RedirectPage() {
  const { t } = useTranslation('pages');
  const [search] = useSearchParams();
  const to = sameOriginPath(search.get('to'));
  const opened = useRef(false);

  useEffect(() => {
    if (!to || opened.current) return;
    opened.current = true;
    window.open(to, CHILD_WINDOW_NAME);
  }, [to]);

  return (
    <section>
      <PageTitle>{t('titles.redirect')}</PageTitle>
      {to ? (
        <>
          <p role="status">{t('redirect.opened')}</p>
          <Button variant="outline-primary" onClick={() => window.open(to, CHILD_WINDOW_NAME)}>
            {t('redirect.openAgain')}
          </Button>
        </>
      ) : (
        <p className="text-danger">{t('redirect.invalid')}</p>
      )}
    </section>
  );
}
