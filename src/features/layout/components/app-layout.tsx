import type { ReactNode } from 'react';
import { useAppSelector } from '../../../app/hooks';
import type { PageId } from '../../../app/permissions';
import { Header } from './header';
import { Footer, type FooterLinks } from './footer';
import { LoadingOverlay } from './loading-overlay';
import { UploadAlert } from './upload-alert';
import { ModalHost } from './modal-host';

export interface AppLayoutProps {
  /** The page on screen; null on error pages. */
  page: PageId | null;
  /** URLs the layout links to (the root layout passes them, from config/paths.ts). */
  links: FooterLinks & { login: string };
  children: ReactNode;
}

/** Spec §2 generic layout: header, main, footer, loading overlay, upload alert and the alert/confirm modals. */
export function AppLayout({ page, links, children }: AppLayoutProps) {
  const visible = useAppSelector((s) => s.layout.visible);
  return (
    <div className="app-shell">
      {visible && <Header page={page} loginHref={links.login} />}
      <main id="main" className="app-main container-fluid py-3">
        {children}
      </main>
      {visible && <Footer links={links} />}
      <UploadAlert />
      <LoadingOverlay />
      <ModalHost />
    </div>
  );
}
