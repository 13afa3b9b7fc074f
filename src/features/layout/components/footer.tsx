import { useTranslation } from 'react-i18next';
import { useAppSelector } from '../../../app/hooks';
import { NewWindowLink } from '../../../components/ui/new-window-link';
import { selectActor } from '../../session/session-slice';
import { ACTOR } from '@contract/constants/common';

export interface FooterLinks {
  terms: string;
  privacy: string;
  inquiry: string;
}

/** Spec §2 footer: terms and privacy (testers only) and inquiry (everyone), each in a new window; copyright and a note. */
export function Footer({ links }: { links: FooterLinks }) {
  const { t } = useTranslation('footer');
  const actor = useAppSelector(selectActor);
  const isTester = actor === ACTOR.tester;
  const newWindow = t('newWindow');
  return (
    <footer className="border-top bg-body px-3 py-2 small">
      <nav aria-label={t('label')}>
        <ul className="list-inline mb-1">
          {isTester && (
            <>
              <li className="list-inline-item">
                <NewWindowLink
                  href={links.terms}
                  target="terms"
                  newWindowText={newWindow}
                  className="d-inline-block py-1"
                >
                  {t('terms')}
                </NewWindowLink>
              </li>
              <li className="list-inline-item">
                <NewWindowLink
                  href={links.privacy}
                  target="privacy"
                  newWindowText={newWindow}
                  className="d-inline-block py-1"
                >
                  {t('privacy')}
                </NewWindowLink>
              </li>
            </>
          )}
          <li className="list-inline-item">
            <NewWindowLink
              href={links.inquiry}
              target="inquiry"
              newWindowText={newWindow}
              className="d-inline-block py-1"
            >
              {t('inquiry')}
            </NewWindowLink>
          </li>
        </ul>
      </nav>
      <p className="mb-0 text-body-secondary">{t('note')}</p>
      <p className="mb-0 text-body-secondary">
        <small>{t('copyright')}</small>
      </p>
    </footer>
  );
}
