import type { ReactNode } from 'react';

/** The page's one <h1> (headings below it start at h2). */
export function PageTitle({ children, className }: { children: ReactNode; className?: string }) {
  return <h1 className={`h3 mb-3 ${className ?? ''}`.trim()}>{children}</h1>;
}
