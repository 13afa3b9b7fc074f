import { PageTitle } from './page-title';

/**
 * A page whose content arrives with a later issue: its real title and one line saying what comes (issue #2:
 * "pages not yet built render a titled page in the layout, not a blank").
 */
export function PendingPage({ title, note }: { title: string; note: string }) {
  return (
    <section aria-labelledby="page-title">
      <PageTitle>
        <span id="page-title">{title}</span>
      </PageTitle>
      <p className="text-body-secondary">{note}</p>
    </section>
  );
}
