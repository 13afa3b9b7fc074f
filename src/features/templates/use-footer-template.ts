import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useAppDispatch } from '../../app/hooks';
import { footerTemplateRequested, type FooterTemplateKind, type FooterTemplateLoad } from './template-thunks';

export type FooterTemplateState = { status: 'loading' } | ({ status: 'done' } & FooterTemplateLoad);

/** The footer template of a page, in the user's language; loaded through the thunk (page-local, not stored). */
export function useFooterTemplate(kind: FooterTemplateKind): FooterTemplateState {
  const dispatch = useAppDispatch();
  const { i18n } = useTranslation();
  const lang = i18n.language === 'en' ? 'en' : 'ja';
  const key = `${kind}|${lang}`;
  const [loaded, setLoaded] = useState<{ key: string; load: FooterTemplateLoad } | null>(null);
  useEffect(() => {
    const p = dispatch(footerTemplateRequested({ kind, lang }));
    p.then((action: unknown) => {
      if (footerTemplateRequested.fulfilled.match(action))
        setLoaded({ key: `${kind}|${lang}`, load: action.payload });
    }).catch(() => undefined);
    return () => p.abort();
  }, [dispatch, kind, lang]);
  return loaded && loaded.key === key ? { status: 'done', ...loaded.load } : { status: 'loading' };
}
