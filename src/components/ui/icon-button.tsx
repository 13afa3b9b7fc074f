import type { ButtonHTMLAttributes, ReactNode } from 'react';

export interface IconButtonProps extends Omit<
  ButtonHTMLAttributes<HTMLButtonElement>,
  'aria-label' | 'children'
> {
  /** Accessible name: icon buttons have no visible text. */
  label: string;
  icon: ReactNode;
  variant?: string;
}

/** A button showing only an icon, with an accessible name and a target of at least 24×24 px (WCAG 2.5.8). */
export function IconButton({
  label,
  icon,
  variant = 'outline-secondary',
  className,
  type = 'button',
  ...rest
}: IconButtonProps) {
  return (
    <button
      {...rest}
      type={type}
      aria-label={label}
      title={label}
      className={`btn btn-${variant} d-inline-flex align-items-center justify-content-center ${className ?? ''}`.trim()}
      style={{ minWidth: 32, minHeight: 32, ...rest.style }}
    >
      <span aria-hidden="true">{icon}</span>
    </button>
  );
}

/** A plain "×" mark for close buttons (no icon font needed). */
export const CLOSE_ICON = '\u00d7';
