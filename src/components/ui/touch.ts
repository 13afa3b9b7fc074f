import type { CSSProperties } from 'react';

/** WCAG 2.2 target size: examinee controls are at least 44 × 44 px. */
export const TOUCH: CSSProperties = { minHeight: 44, minWidth: 44 };
/** A checkbox row whose whole label is a ≥44 px target. */
export const CHECK_ROW: CSSProperties = {
  minHeight: 44,
  display: 'flex',
  alignItems: 'center',
  gap: '0.5rem',
};
export const CHECK_BOX: CSSProperties = { width: 24, height: 24, margin: 0, flex: 'none' };
