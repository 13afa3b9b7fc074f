import type { HTMLAttributes } from 'react';

export interface AlertBoxProps extends HTMLAttributes<HTMLDivElement> {
  variant: 'warning' | 'danger' | 'info' | 'success';
}

/**
 * Bootstrap's alert box (role alert) as plain markup, for a message that is neither dismissed nor animated.
 * react-bootstrap's Alert renders the same box but brings its fade transition along, a few KB on the pages
 * every examinee opens first (login, the layout's upload notice).
 */
export function AlertBox({ variant, className, children, ...rest }: AlertBoxProps) {
  return (
    <div role="alert" {...rest} className={`alert alert-${variant}${className ? ` ${className}` : ''}`}>
      {children}
    </div>
  );
}
