import type { MouseEvent, ReactNode } from 'react';

export interface NewWindowLinkProps {
  href: string;
  children: ReactNode;
  /** Said to screen-reader users after the link text, e.g. "(opens in a new window)". */
  newWindowText: string;
  className?: string;
  /** Window name; the same name reuses one window. */
  target?: string;
}

function sameOrigin(href: string): boolean {
  try {
    return new URL(href, window.location.href).origin === window.location.origin;
  } catch {
    return false;
  }
}

/**
 * A link opened in a new window with window.open (not target=_blank), so a same-origin page keeps the opener
 * relation and a copy of sessionStorage (start-up parameters and login) — spec §2: footer pages open in a new
 * window; another site's page opens with noopener. Middle-click and "open in new tab" still work through the href.
 */
export function NewWindowLink({
  href,
  children,
  newWindowText,
  className,
  target = '_blank',
}: NewWindowLinkProps) {
  const onClick = (e: MouseEvent<HTMLAnchorElement>) => {
    if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    if (sameOrigin(href)) window.open(href, target);
    else window.open(href, target, 'noopener,noreferrer');
  };
  return (
    <a
      href={href}
      target={target}
      rel={sameOrigin(href) ? 'opener' : 'noopener noreferrer'}
      onClick={onClick}
      className={className}
    >
      {children}
      <span className="visually-hidden">{newWindowText}</span>
    </a>
  );
}
